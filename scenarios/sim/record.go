package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file records what the run does: readKeys reads a server's keys after
// a change, emit and record append an event to the trace with a snapshot of
// the world.

// readKeys reads a server's keys, keeping each key's writer from prev. A
// key or value that has not changed since prev is prev's string, so that
// every snapshot shares one copy of it (a real server's reading is a new
// one each time). A server that cannot be read stops the run.
func (f *fleet) readKeys(srv *server, prev []trace.KeyState) []trace.KeyState {
	if !srv.up {
		return nil
	}
	if f.w.wall.real != nil {
		srv.readAt = time.Now()
	}
	keys, err := srv.b.Read(f.w.now)
	if err != nil {
		f.w.fail(f.w.wall.runErr(fmt.Errorf("read %s: %w", srv.name, err)))
		return prev
	}
	for i := range keys {
		if old, ok := findKey(prev, keys[i].Key); ok {
			keys[i].Key, keys[i].Writer = old.Key, old.Writer
			if keys[i].Value == old.Value {
				keys[i].Value = old.Value
			}
		}
	}
	return keys
}

func findKey(keys []trace.KeyState, k string) (trace.KeyState, bool) {
	for _, ks := range keys {
		if ks.Key == k {
			return ks, true
		}
	}
	return trace.KeyState{}, false
}

// emit appends an event with a snapshot of the world, then judges the
// invariants that look at beliefs.
func (w *world) emit(e trace.Event) {
	w.record(e)
	if e.Kind != trace.KindViolation && e.Kind != trace.KindNarration {
		w.observe(invariant.Observation{Kind: invariant.Event})
	}
}

func (w *world) record(e trace.Event) int {
	if r := w.wall.real; r != nil && !r.Start().IsZero() {
		w.trace.Drift = r.Drift(w.now, len(w.trace.Events) == 0)
	}
	e.Step = len(w.trace.Events)
	e.T = w.now
	e.Snap = w.snapshot()
	w.names.canonEvent(&e)
	w.trace.Events = append(w.trace.Events, e)
	if w.wall.pacer != nil && w.wall.pacer.Event != nil {
		header := w.trace
		header.Events = nil
		w.wall.paced(func() { w.wall.pacer.Event(header, e) })
	}
	return e.Step
}

func (w *world) snapshot() trace.Snapshot {
	var s trace.Snapshot
	for _, srv := range w.fleet.servers {
		st := trace.ServerState{Name: srv.name, Role: srv.role, Up: srv.up,
			Keys: slices.Clone(srv.keys), ClockAhead: srv.ahead}
		if srv.primary >= 0 {
			st.ReplicaOf = w.fleet.servers[srv.primary].name
			st.Lag = srv.lag
			for _, e := range w.fleet.repl {
				if e.replica == w.fleet.indexOf(srv) {
					st.Pending++
				}
			}
			if f, ok := srv.b.(backend.Follower); ok {
				st.Pending = f.Pending()
			}
		}
		s.Servers = append(s.Servers, st)
	}
	for _, c := range w.clients {
		cs := trace.ClientState{Name: c.name, Belief: c.belief, Op: c.op, Token: c.token,
			Fence: c.fence, Paused: c.paused, Crashed: c.crashed, Held: c.biz.held,
			Hung: c.hung}
		s.Clients = append(s.Clients, cs)
	}
	s.Resource = w.res.state()
	return s
}

func (f *fleet) indexOf(srv *server) int { return slices.Index(f.servers, srv) }

func sameKeys(a, b []trace.KeyState) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}
