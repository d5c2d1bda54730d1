package sim

import (
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// For a lock on several independent nodes (Redlock), the end of an acquire
// attempt is narrated with how many nodes said OK and whether that is a
// majority. The engine does not ask the lock: it counts what the trace
// shows. An attempt is what the client's goroutines sent between its
// OpAcquire (or OpReenter) note, or the end of its previous attempt, and the
// note that ends it.

// nodeAnswer is what one node answered a client's SET … NX in an attempt.
type nodeAnswer int

const (
	answerFailed nodeAnswer = iota // an error: down, cut off, or refused
	answerNo                       // nil: the key was there
	answerOK
)

// beginAttempt marks where client c's acquire attempt starts in the trace.
func (w *world) beginAttempt(c *client) { c.attemptFrom = len(w.trace.Events) }

// quorum ends client c's acquire attempt: on a world of more than one node,
// it emits one event that counts the nodes whose SET … NX on the lock's key
// said OK, against the majority, naming the nodes where the command failed.
// acquired is what the lock said. An attempt that sent no such SET (a lock
// that acquires some other way) is not narrated. When the attempt took
// time, or the lock reports its validity (n), the event says how long it
// took and what was left of the lease.
func (w *world) quorum(c *client, acquired bool, n note) {
	from := min(c.attemptFrom, len(w.trace.Events))
	w.beginAttempt(c)
	if len(w.fleet.route) < 2 {
		return
	}
	answers := map[string]nodeAnswer{}
	first, last := time.Duration(-1), time.Duration(0)
	for _, e := range w.trace.Events[from:] {
		if e.Kind != trace.KindCommand || !actorOf(e.Actor, c.name) || !isSetNX(e.Args, c.key) {
			continue
		}
		if first < 0 {
			first = e.T
		}
		last = e.T
		ans := answerFailed
		switch {
		case e.Reply == "OK":
			ans = answerOK
		case e.Reply == "(nil)":
			ans = answerNo
		}
		// One answer per node: the best it gave in this attempt.
		if prev, seen := answers[e.Server]; !seen || ans > prev {
			answers[e.Server] = ans
		}
	}
	if len(answers) == 0 {
		return
	}
	ok := 0
	var failed []string
	for i := range w.fleet.route {
		name := w.fleet.servers[w.fleet.route[i]].name
		switch ans, seen := answers[name]; {
		case !seen:
		case ans == answerOK:
			ok++
		case ans == answerFailed:
			failed = append(failed, name)
		}
	}
	nodes := len(w.fleet.route)
	// The validity decides only for a majority; without one, the time the
	// attempt took is worth saying only when it took any. A majority that
	// fails for want of validity is said once, with the validity.
	majority := ok >= nodes/2+1
	explained := n.hasValidity && majority && n.validity <= 0 && !acquired
	say := narrate.Quorum(c.name, ok, nodes, failed, acquired || explained)
	if elapsed := last - first; (n.hasValidity && majority) || elapsed > 0 {
		v := narrate.Validity(w.setup.TTL, elapsed, n.validity, n.hasValidity && majority, acquired)
		say = text.Text{EN: say.EN + v.EN, ZH: say.ZH + v.ZH}
	}
	w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: say, Short: narrate.ShortQuorum(ok, nodes)})
}

// actorOf says whether actor is client c's business goroutine or one of the
// goroutines it started ("A.watchdog", "A/redis-3").
func actorOf(actor, c string) bool {
	client, _, _ := trace.SplitActor(actor)
	return client == c
}

// isSetNX says whether args are a SET of key with NX.
func isSetNX(args []string, key string) bool {
	if len(args) < 3 || !strings.EqualFold(args[0], "set") || args[1] != key {
		return false
	}
	return slices.ContainsFunc(args[3:], func(a string) bool { return strings.EqualFold(a, "nx") })
}
