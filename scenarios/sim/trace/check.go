package trace

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// kinds are the kinds of event a trace may have.
var kinds = []Kind{KindNarration, KindCommand, KindBelief, KindResource, KindExpire,
	KindReplicate, KindFault, KindSchedule, KindViolation}

// Validate reports the first thing in a trace that no run of the engine
// makes, naming its field ("events[3].t_ns: 1s is before the previous
// event's 2s"): a trace read from a file is checked whole before anything
// renders or replays it. It checks the header (schema, a known
// implementation, a lease, distinct client and server names, no more
// addresses than servers), every event (its step is its index, time never
// goes back, a known kind, actors and servers that are the trace's own,
// violations of known invariants, snapshots of every server and client in
// the header's order) and the verdicts (one per invariant, in order; a
// broken one points at its violation). A schedule's bounds are the
// explorer's to check (explore.ValidateSchedule).
func (t *Trace) Validate(invariants []string) error {
	if t.Schema != TraceSchema {
		return fmt.Errorf("schema: %q, want %q", t.Schema, TraceSchema)
	}
	if t.Scenario == "" {
		return errors.New("scenario: empty")
	}
	if _, err := lockimpl.Lookup(t.Impl); err != nil && !t.External {
		return fmt.Errorf("impl: %w", err)
	}
	if t.Impl == "" {
		return errors.New("impl: empty")
	}
	if t.Key == "" {
		return errors.New("key: empty")
	}
	if t.TTL <= 0 {
		return fmt.Errorf("ttl_ns: %s, want a lease longer than 0", t.TTL)
	}
	if err := distinct("servers", t.Servers); err != nil {
		return err
	}
	if len(t.Addrs) > len(t.Servers) {
		return fmt.Errorf("addrs: %d, more than the servers (%d)", len(t.Addrs), len(t.Servers))
	}
	if t.Drift < 0 {
		return fmt.Errorf("drift_ns: %s, below 0", t.Drift)
	}
	if err := distinct("clients", t.Clients); err != nil {
		return err
	}
	if len(t.Events) == 0 {
		return errors.New("events: none; a run has at least one")
	}
	for i := range t.Events {
		if err := t.validateEvent(i, invariants); err != nil {
			return fmt.Errorf("events[%d].%w", i, err)
		}
	}
	return t.validateVerdicts(invariants)
}

// MaxTraceNames bounds a trace's clients and its servers: a lesson has at
// most MaxLessonClients (8) clients and a handful of servers, the explorer
// three clients and five servers. A file naming 100,000 took seconds to
// check, each event's actor looked up among them all.
const MaxTraceNames = 64

// distinct checks a list of names: at least one, at most MaxTraceNames,
// none empty, none twice.
func distinct(field string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("%s: none; a run has at least one", field)
	}
	if len(names) > MaxTraceNames {
		return fmt.Errorf("%s: %d names; a trace has at most %d", field, len(names), MaxTraceNames)
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("%s[%d]: empty", field, i)
		}
		if seen[n] {
			return fmt.Errorf("%s[%d]: %q twice", field, i, n)
		}
		seen[n] = true
	}
	return nil
}

// validateEvent checks event i; its error starts with the field's name.
func (t *Trace) validateEvent(i int, invariants []string) error {
	e := t.Events[i]
	if e.Step != i {
		return fmt.Errorf("step: %d, want %d (the event's index)", e.Step, i)
	}
	if i == 0 && e.T < 0 {
		return fmt.Errorf("t_ns: %s, before the start", e.T)
	}
	if i > 0 && e.T < t.Events[i-1].T {
		return fmt.Errorf("t_ns: %s is before the previous event's %s", e.T, t.Events[i-1].T)
	}
	if !slices.Contains(kinds, e.Kind) {
		return fmt.Errorf("kind: %s", suggest.Unknown(text.New("kind", "类型"), string(e.Kind), kindNames()).EN)
	}
	// An actor is a client or one of its goroutines (A.watchdog).
	if c, _, _ := SplitActor(e.Actor); e.Actor != "" && !slices.Contains(t.Clients, c) {
		return fmt.Errorf("actor: %q is not one of the clients %v", e.Actor, t.Clients)
	}
	if e.Server != "" && !slices.Contains(t.Servers, e.Server) {
		return fmt.Errorf("server: %q is not one of the servers %v", e.Server, t.Servers)
	}
	if e.Kind == KindViolation || e.Invariant != "" {
		if !slices.Contains(invariants, e.Invariant) {
			return fmt.Errorf("invariant: %s", suggest.Unknown(text.New("invariant", "不变量"), e.Invariant, invariants).EN)
		}
		if e.Kind != KindViolation {
			return fmt.Errorf("invariant: %q on a %s event; only violations name one", e.Invariant, e.Kind)
		}
	}
	return t.validateSnapshot(e.Snap)
}

// validateSnapshot checks that a snapshot has every server and every client
// of the header, in its order.
func (t *Trace) validateSnapshot(s Snapshot) error {
	if len(s.Servers) != len(t.Servers) {
		return fmt.Errorf("snapshot.servers: %d, want %d (one per server)", len(s.Servers), len(t.Servers))
	}
	for j, srv := range s.Servers {
		if srv.Name != t.Servers[j] {
			return fmt.Errorf("snapshot.servers[%d].name: %q, want %q", j, srv.Name, t.Servers[j])
		}
		if srv.ReplicaOf != "" && !slices.Contains(t.Servers, srv.ReplicaOf) {
			return fmt.Errorf("snapshot.servers[%d].replica_of: %q is not one of the servers %v", j, srv.ReplicaOf, t.Servers)
		}
	}
	if len(s.Clients) != len(t.Clients) {
		return fmt.Errorf("snapshot.clients: %d, want %d (one per client)", len(s.Clients), len(t.Clients))
	}
	for j, c := range s.Clients {
		if c.Name != t.Clients[j] {
			return fmt.Errorf("snapshot.clients[%d].name: %q, want %q", j, c.Name, t.Clients[j])
		}
	}
	return nil
}

// validateVerdicts checks one verdict per invariant, in order, each broken
// one at a violation of its invariant, each other one without a step.
func (t *Trace) validateVerdicts(invariants []string) error {
	if len(t.Verdicts) != len(invariants) {
		return fmt.Errorf("verdicts: %d, want %d (one per invariant)", len(t.Verdicts), len(invariants))
	}
	for i, v := range t.Verdicts {
		if id := invariants[i]; v.Invariant != id {
			return fmt.Errorf("verdicts[%d].invariant: %q, want %q", i, v.Invariant, id)
		}
		if !v.Broken {
			if v.Step != 0 || v.T != 0 {
				return fmt.Errorf("verdicts[%d]: step %d, t_ns %s on an invariant that held", i, v.Step, v.T)
			}
			continue
		}
		if v.Step < 0 || v.Step >= len(t.Events) {
			return fmt.Errorf("verdicts[%d].step: %d is not an event (0 to %d)", i, v.Step, len(t.Events)-1)
		}
		if e := t.Events[v.Step]; e.Kind != KindViolation || e.Invariant != v.Invariant {
			return fmt.Errorf("verdicts[%d].step: event %d is not a violation of %s", i, v.Step, v.Invariant)
		}
		if at := t.Events[v.Step].T; v.T != at {
			return fmt.Errorf("verdicts[%d].t_ns: %s, but event %d is at %s", i, v.T, v.Step, at)
		}
	}
	return nil
}

// Clean replaces the control characters in every string of the trace with
// visible escapes (CleanText), so that no text read from a file reaches a
// terminal as an escape sequence. A command's arguments keep their newlines
// and tabs: they carry Lua scripts in full, and only the JSON format, which
// escapes them, shows them. Every other string loses them too: the
// renderers give each event one line, and narration never has a newline.
func (t *Trace) Clean() {
	t.Schema, t.Scenario, t.Impl, t.Key = text.Clean(t.Schema), text.Clean(t.Scenario), text.Clean(t.Impl), text.Clean(t.Key)
	t.Title = cleanText(t.Title)
	cleanAll(t.Servers)
	cleanAll(t.Addrs)
	cleanAll(t.Clients)
	for i := range t.Events {
		e := &t.Events[i]
		e.Kind, e.Actor, e.Server = Kind(text.Clean(string(e.Kind))), text.Clean(e.Actor), text.Clean(e.Server)
		for j, a := range e.Args {
			e.Args[j] = cleanScript(a)
		}
		e.Command, e.Reply, e.Invariant = text.Clean(e.Command), text.Clean(e.Reply), text.Clean(e.Invariant)
		e.Text, e.Short = cleanText(e.Text), cleanText(e.Short)
		e.Snap.clean()
	}
	for i := range t.Verdicts {
		v := &t.Verdicts[i]
		v.Invariant, v.Reason = text.Clean(v.Invariant), cleanText(v.Reason)
	}
	for i := range t.Tokens {
		tok := &t.Tokens[i]
		tok.Name, tok.Value = text.Clean(tok.Name), text.Clean(tok.Value)
	}
	if s := t.Schedule; s != nil {
		for i, f := range s.Faults {
			s.Faults[i] = Fault(text.Clean(string(f)))
		}
		s.Guard = Guard(text.Clean(string(s.Guard)))
		cleanAll(s.Moves)
	}
}

func (s *Snapshot) clean() {
	for i := range s.Servers {
		srv := &s.Servers[i]
		srv.Name, srv.Role, srv.ReplicaOf = text.Clean(srv.Name), text.Clean(srv.Role), text.Clean(srv.ReplicaOf)
		for j := range srv.Keys {
			k := &srv.Keys[j]
			k.Key, k.Type, k.Value, k.Writer = text.Clean(k.Key), text.Clean(k.Type), text.Clean(k.Value), text.Clean(k.Writer)
		}
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		c.Name, c.Belief, c.Op, c.Token = text.Clean(c.Name), Belief(text.Clean(string(c.Belief))), Op(text.Clean(string(c.Op))), text.Clean(c.Token)
	}
	s.Resource.Name = text.Clean(s.Resource.Name)
}

func cleanText(t text.Text) text.Text { return text.Text{EN: text.Clean(t.EN), ZH: text.Clean(t.ZH)} }

func cleanAll(ss []string) {
	for i, s := range ss {
		ss[i] = text.Clean(s)
	}
}

// cleanScript is CleanText that keeps newlines and tabs.
func cleanScript(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "\n\t")
		if i < 0 {
			if b.Len() == 0 {
				return text.Clean(s)
			}
			b.WriteString(text.Clean(s))
			return b.String()
		}
		b.WriteString(text.Clean(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
}

// kindNames are the event kinds a trace may hold.
func kindNames() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return names
}
