package sim

import (
	"maps"
	"slices"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is the Stepper's world as the explorer sees it: it builds
// package view's State, the typed view of everything a state is told apart
// by, which package explore owns and hashes (explore/state.go); which of the
// world's fields the view holds, and why each of the others is left out, is
// listed in state_test.go, and a test fails for a field that is in neither
// list.

// State is the world's view for the explorer now.
func (s *Stepper) State() view.State {
	w := s.w
	since, orphan := w.Judge.Since()
	st := view.State{
		Key:       w.Setup.Key,
		Alike:     s.alike(),
		ClockFree: w.Impl.ClockFree,
		Orphan:    orphan,
		OrphanFor: since - w.Now,
		Promoting: w.Fleet.Promoting,
		PromoteIn: w.Fleet.PromoteAt - w.Now,
		Tokens:    s.tokens(),
		Faults:    s.memories(),
	}
	for _, srv := range w.Fleet.Servers {
		st.Servers = append(st.Servers, view.ServerView{Name: srv.Name, Up: srv.Up, Role: srv.Role, Ahead: srv.Ahead,
			Latency: srv.Latency, Replica: srv.Replica, Primary: srv.Primary, Keys: srv.Keys})
	}
	for _, si := range w.Fleet.Route {
		st.Nodes = append(st.Nodes, view.NodeView{Server: si})
	}
	for _, e := range w.Fleet.Repl {
		st.Repl = append(st.Repl, view.ReplView{Replica: e.Replica, Key: e.Key, Deleted: e.Deleted, Value: e.State,
			DueIn: e.Due - w.Now, ExpireIn: e.ExpireAt - w.Now})
	}
	for _, c := range w.Clients {
		st.Clients = append(st.Clients, s.clientView(c))
	}
	for _, a := range w.Sched.Actors {
		st.Actors = append(st.Actors, s.actorView(a))
	}
	r := w.Res
	st.Resource = view.ResourceView{Value: r.Value, Version: r.Version, MaxFence: r.MaxFence, Rejected: r.Rejected,
		TokenGuard: r.Guard == trace.GuardToken, Owner: r.Owner, Sold: slices.Sorted(maps.Keys(r.Sold))}
	for _, v := range w.Judge.Verdicts {
		st.Broken = append(st.Broken, v.Broken)
	}
	return st
}

// alike says whether every client runs the same program without jitter
// (whose draws follow the client's name).
func (s *Stepper) alike() bool {
	cs := s.w.Clients
	for _, c := range cs {
		if c.Prog != cs[0].Prog || c.Prog.Jitter {
			return false
		}
	}
	return true
}

func (s *Stepper) clientView(c *model.Client) view.ClientView {
	w := s.w
	v := view.ClientView{Name: c.Name, Belief: c.Belief, Op: c.Op, Token: c.Token, Count: c.Count, Fence: c.Fence,
		Claim: c.Claim, Paused: c.Paused, Crashed: c.Crashed, Hung: c.Hung, Attempts: attemptsThatCount(c),
		Reentering: c.Reentering, ReadVal: c.ReadVal, ReadVer: c.ReadVer,
		Lost: c.Lost != nil, Cut: slices.Sorted(maps.Keys(c.Cut)), Mute: slices.Sorted(maps.Keys(c.Mute))}
	for si, end := range s.lease[c.Name] {
		if _, there := model.FindKey(w.Fleet.Servers[si].Keys, w.Setup.Key); !there && end > w.Now {
			v.GoneLeases = append(v.GoneLeases, view.Lease{Server: si, EndsIn: end - w.Now})
		}
	}
	slices.SortFunc(v.GoneLeases, func(x, y view.Lease) int { return x.Server - y.Server })
	return v
}

// attemptsThatCount is c's attempts, as ClientView.Attempts says.
func attemptsThatCount(c *model.Client) int {
	p := c.Prog
	if c.Belief != trace.BeliefWaiting || p.Attempts == 0 && p.Backoff == 0 && !p.Jitter {
		return 0
	}
	return c.Attempts
}

func (s *Stepper) actorView(a *model.Actor) view.ActorView {
	w := s.w
	v := view.ActorView{Name: a.Name, Client: slices.Index(w.Clients, a.Client), Flight: a.Flight,
		State: int(a.State), Park: int(a.Park), Point: a.Point, Held: a.Held, Node: a.Node, Sent: a.Sent, Orphan: a.Orphan,
		Queued: slices.Contains(w.Sched.Queue, a),
		Ended:  slices.ContainsFunc(w.Sched.Deferred, func(m model.Msg) bool { return m.A == a })}
	if a.Cmd != nil {
		v.Cmd = command.Args(a.Cmd)
	}
	v.Gated = a.Park == model.ParkGate && a.Cmd != nil
	v.Watching, v.WatchedAgo = a.Watching, a.WatchedAt-w.Now
	if wc := a.WaitFor; wc != nil {
		v.Waiting, v.WaitWant = true, wc.Want
		for _, e := range w.Fleet.Repl {
			if e.Seq <= wc.Seq && w.Fleet.Servers[wc.Server].Replica == e.Replica {
				v.WaitAhead++
			}
		}
	}
	switch a.State {
	case model.StateSleeping:
		v.Sleeping, v.SleepIn = true, a.Deadline-w.Now
		v.OnItsWay = a.InCmd && a.Cmd != nil
	case model.StateParked, model.StateFan, model.StateLib:
		if a.State == model.StateParked && (a.Park == model.ParkNone || a.Park == model.ParkStart) {
			// Not started since it left its sleep (or ever): starting it
			// sets Woke, and what Woke says now nothing will read.
			break
		}
		v.Waking, v.WokeAgo = true, a.Woke-w.Now
	}
	return v
}

// tokens finds the state's owner tokens, as Hash's rule defines them: a
// client's Env.Token, the lock key's value or hash fields on a server or in
// pending replication, the lock arguments of a command parked at the gate
// — those that are not numbers.
func (s *Stepper) tokens() []string {
	w := s.w
	is := map[string]bool{}
	add := func(v string) {
		if v != "" && !model.IsNumber(v) {
			is[v] = true
		}
	}
	lock := func(k trace.KeyState) {
		if k.Key != w.Setup.Key {
			return
		}
		switch k.Type {
		case "string":
			add(k.Value)
		case "hash":
			for _, f := range k.Fields() {
				add(f[0])
			}
		}
	}
	for _, c := range w.Clients {
		add(c.Token)
	}
	for _, srv := range w.Fleet.Servers {
		for _, k := range srv.Keys {
			lock(k)
		}
	}
	for _, e := range w.Fleet.Repl {
		if !e.Deleted {
			lock(e.State)
		}
	}
	for _, a := range w.Sched.Actors {
		if a.Park == model.ParkGate && a.Cmd != nil {
			for _, v := range model.LockArgs(command.Args(a.Cmd), w.Setup.Key) {
				add(v)
			}
		}
	}
	return slices.Sorted(maps.Keys(is))
}
