package engine

import (
	"slices"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file records what the run does: Emit and Record append an event to
// the trace with a snapshot of the world (the servers' keys as
// fleet.ReadKeys last read them).

// Emit appends an event with a snapshot of the world, then judges the
// invariants that look at beliefs.
func (w *World) Emit(e trace.Event) {
	w.Record(e)
	if e.Kind != trace.KindViolation && e.Kind != trace.KindNarration {
		w.Observe(invariant.Observation{Kind: invariant.Event})
	}
}

func (w *World) Record(e trace.Event) int {
	if r := w.Wall.Real; r != nil && !r.Start().IsZero() {
		w.Trace.Drift = r.Drift(w.Now, len(w.Trace.Events) == 0)
	}
	e.Step = len(w.Trace.Events)
	e.T = w.Now
	e.Snap = w.Snapshot()
	w.Names.CanonEvent(&e)
	w.Trace.Events = append(w.Trace.Events, e)
	if w.Wall.Pacer != nil && w.Wall.Pacer.Event != nil {
		header := w.Trace
		header.Events = nil
		w.Wall.paced(func() { w.Wall.Pacer.Event(header, e) })
	}
	return e.Step
}

func (w *World) Snapshot() trace.Snapshot {
	var s trace.Snapshot
	for _, srv := range w.Fleet.Servers {
		st := trace.ServerState{Name: srv.Name, Role: srv.Role, Up: srv.Up,
			Keys: slices.Clone(srv.Keys), ClockAhead: srv.Ahead}
		if srv.Primary >= 0 {
			st.ReplicaOf = w.Fleet.Servers[srv.Primary].Name
			st.Lag = srv.Lag
			for _, e := range w.Fleet.Repl {
				if e.Replica == w.Fleet.IndexOf(srv) {
					st.Pending++
				}
			}
			if f, ok := srv.B.(backend.Follower); ok {
				st.Pending = f.Pending()
			}
		}
		s.Servers = append(s.Servers, st)
	}
	for _, c := range w.Clients {
		cs := trace.ClientState{Name: c.Name, Belief: c.Belief, Op: c.Op, Token: c.Token,
			Fence: c.Fence, Paused: c.Paused, Crashed: c.Crashed, Held: c.Biz.Held,
			Hung: c.Hung, ReadLock: c.Shares}
		s.Clients = append(s.Clients, cs)
	}
	s.Resource = w.Res.State()
	return s
}
