package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

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
func (f *fleet) readKeys(srv *model.Server, prev []trace.KeyState) []trace.KeyState {
	if !srv.Up {
		return nil
	}
	if f.w.wall.real != nil {
		srv.ReadAt = time.Now()
	}
	keys, err := srv.B.Read(f.w.now)
	if err != nil {
		f.w.fail(f.w.wall.runErr(fmt.Errorf("read %s: %w", srv.Name, err)))
		return prev
	}
	for i := range keys {
		if old, ok := model.FindKey(prev, keys[i].Key); ok {
			keys[i].Key, keys[i].Writer = old.Key, old.Writer
			if keys[i].Value == old.Value {
				keys[i].Value = old.Value
			}
		}
	}
	return keys
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
	w.names.CanonEvent(&e)
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
		st := trace.ServerState{Name: srv.Name, Role: srv.Role, Up: srv.Up,
			Keys: slices.Clone(srv.Keys), ClockAhead: srv.Ahead}
		if srv.Primary >= 0 {
			st.ReplicaOf = w.fleet.servers[srv.Primary].Name
			st.Lag = srv.Lag
			for _, e := range w.fleet.repl {
				if e.Replica == w.fleet.indexOf(srv) {
					st.Pending++
				}
			}
			if f, ok := srv.B.(backend.Follower); ok {
				st.Pending = f.Pending()
			}
		}
		s.Servers = append(s.Servers, st)
	}
	for _, c := range w.clients {
		cs := trace.ClientState{Name: c.Name, Belief: c.Belief, Op: c.Op, Token: c.Token,
			Fence: c.Fence, Paused: c.Paused, Crashed: c.Crashed, Held: c.Biz.Held,
			Hung: c.Hung}
		s.Clients = append(s.Clients, cs)
	}
	s.Resource = w.res.State()
	return s
}

func (f *fleet) indexOf(srv *model.Server) int { return slices.Index(f.servers, srv) }
