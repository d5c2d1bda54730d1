package sim

import (
	"maps"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is the Stepper's world as the explorer sees it: State, a typed
// view of everything a state is told apart by. Package explore hashes it
// (explore/state.go); which of the world's fields the view holds, and why
// each of the others is left out, is listed in state_test.go, and a test
// fails for a field that is in neither list.

// State is a Stepper's world at one instant, as the explorer tells states
// apart: servers' keys and pending replication, every actor's position and
// how long ago it last woke, every client's beliefs and tokens, the
// resource, the invariants' state, what the Stepper's faults have left
// behind. Times are relative to the world's now (a key's TTL, the time
// left), so two states that differ only in when they happen are the same
// view.
type State struct {
	// Key is the lock's key: the key whose value, or hash fields, are
	// owner tokens.
	Key string
	// Servers in the world's order; Nodes are the logical nodes in route
	// order, each with the server serving it.
	Servers []ServerView
	Nodes   []NodeView
	// Repl are the writes on their way to a replica, in order.
	Repl []ReplView
	// Clients in creation order (A, B, …); Alike says they all run the
	// same program without jitter, so that renaming them gives the same
	// world.
	Clients []ClientView
	Alike   bool
	// Actors in creation order.
	Actors   []ActorView
	Resource ResourceView
	// Broken is each invariant's verdict, in invariant order.
	Broken []bool
	// Orphan: liveness's clock runs (a client waits while no live client
	// holds the lock), since OrphanFor ago (negative).
	Orphan    bool
	OrphanFor time.Duration
	// Promoting: Sentinel promotes the first node's replica in PromoteIn.
	Promoting bool
	PromoteIn time.Duration
	// Tokens are the owner tokens the state holds anywhere, as Hash's rule
	// in package explore defines them (tokens, LockArgs).
	Tokens []string
	// Faults are what the Stepper's faults have left behind (a pause that
	// has struck a client, a server restarted): the memory of every fault
	// that keeps one, in the faults' order, whether or not it has struck.
	Faults []FaultMemory
}

// ServerView is one server.
type ServerView struct {
	Name string
	Up   bool
	Role string
	// Ahead is how far its clock has jumped; Latency, how late a command
	// reaches it.
	Ahead, Latency time.Duration
	// Replica and Primary are indexes into State.Servers, -1 for none.
	Replica, Primary int
	Keys             []trace.KeyState
}

// NodeView is one logical node. What the Stepper's faults did to it is
// their memories' (State.Faults).
type NodeView struct {
	Server int // index into State.Servers
}

// ReplView is one write on its way from a primary to its replica.
type ReplView struct {
	Replica int // index into State.Servers
	Key     string
	Deleted bool
	Value   trace.KeyState // its type and value
	// DueIn is when it arrives; ExpireIn, when the key it carries expires
	// (minus now when it does not).
	DueIn, ExpireIn time.Duration
}

// ClientView is one client process.
type ClientView struct {
	Name   string
	Belief trace.Belief
	Op     trace.Op
	// Token and Count: the last Env.Token handed out and how many.
	Token string
	Count int
	Fence int64
	// Claim is the lock token it shows the resource (GuardToken).
	Claim                 string
	Paused, Crashed, Hung bool
	// Attempts is how many acquire attempts its current wait has made,
	// while it waits and its program counts them (a cap on attempts, a
	// backoff, jitter): the program's loop gives up at its cap, and
	// draws its next wait from the count. 0 otherwise, when the count
	// only tells the narration how long it waited.
	Attempts int
	// Reentering: a nested call waits for the lock the client holds.
	Reentering       bool
	ReadVal, ReadVer int
	Lost             bool  // it has a watchdog's lost channel
	Cut, Mute        []int // logical nodes cut off, whose replies are lost; sorted
	GoneLeases       []Lease
}

// Lease is a holder's lease on a server whose lock key is gone (a restart
// or a failover took it): it still ends the holder's lease there.
type Lease struct {
	Server int // index into State.Servers
	EndsIn time.Duration
}

// ActorView is one actor: a client's business goroutine, a goroutine its
// lock started through Env.Go, or a flight.
type ActorView struct {
	Name   string
	Client int // index into State.Clients
	Flight bool
	// State and Park are its scheduling state and where it is parked,
	// as numbers; Point is the program point it waits at.
	State, Park int
	Point       trace.Op
	Held        bool // frozen by a hold
	// Sent: a pipeline's command parked at the gate, on the wire already.
	// Orphan: on its way to a slow server with its client gone.
	Sent, Orphan bool
	// Waiting in a WAIT the engine answers for WaitWant replicas, with
	// WaitAhead of the writes it waits for still on their way.
	Waiting   bool
	WaitWant  int64
	WaitAhead int
	Queued    bool // in line to run
	Ended     bool // its context ended while its client was stopped
	// Gated: parked at the gate with Cmd (its arguments) for logical node
	// Node. OnItsWay: asleep on its way to a slow server, to run Cmd there.
	Gated, OnItsWay bool
	Node            int
	Cmd             []string
	// Sleeping until SleepIn; Waking: parked or blocked in lock code, woke
	// WokeAgo ago (negative): lock code reads the clock when it wakes.
	Sleeping, Waking bool
	SleepIn, WokeAgo time.Duration
}

// ResourceView is the protected resource.
type ResourceView struct {
	Value, Version int
	MaxFence       int64
	Rejected       int
	// TokenGuard: the store checks the lock token (GuardToken) against
	// Owner, the token the row was last stamped with.
	TokenGuard bool
	Owner      string
	Sold       []int // GuardUnique: the units sold, sorted
}

// State is the world's view for the explorer now.
func (s *Stepper) State() State {
	w := s.w
	since, orphan := w.Judge.Since()
	st := State{
		Key:       w.Setup.Key,
		Alike:     s.alike(),
		Orphan:    orphan,
		OrphanFor: since - w.Now,
		Promoting: w.Fleet.Promoting,
		PromoteIn: w.Fleet.PromoteAt - w.Now,
		Tokens:    s.tokens(),
		Faults:    s.memories(),
	}
	for _, srv := range w.Fleet.Servers {
		st.Servers = append(st.Servers, ServerView{Name: srv.Name, Up: srv.Up, Role: srv.Role, Ahead: srv.Ahead,
			Latency: srv.Latency, Replica: srv.Replica, Primary: srv.Primary, Keys: srv.Keys})
	}
	for _, si := range w.Fleet.Route {
		st.Nodes = append(st.Nodes, NodeView{Server: si})
	}
	for _, e := range w.Fleet.Repl {
		st.Repl = append(st.Repl, ReplView{Replica: e.Replica, Key: e.Key, Deleted: e.Deleted, Value: e.State,
			DueIn: e.Due - w.Now, ExpireIn: e.ExpireAt - w.Now})
	}
	for _, c := range w.Clients {
		st.Clients = append(st.Clients, s.clientView(c))
	}
	for _, a := range w.Sched.Actors {
		st.Actors = append(st.Actors, s.actorView(a))
	}
	r := w.Res
	st.Resource = ResourceView{Value: r.Value, Version: r.Version, MaxFence: r.MaxFence, Rejected: r.Rejected,
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

func (s *Stepper) clientView(c *model.Client) ClientView {
	w := s.w
	v := ClientView{Name: c.Name, Belief: c.Belief, Op: c.Op, Token: c.Token, Count: c.Count, Fence: c.Fence,
		Claim: c.Claim, Paused: c.Paused, Crashed: c.Crashed, Hung: c.Hung, Attempts: attemptsThatCount(c),
		Reentering: c.Reentering, ReadVal: c.ReadVal, ReadVer: c.ReadVer,
		Lost: c.Lost != nil, Cut: slices.Sorted(maps.Keys(c.Cut)), Mute: slices.Sorted(maps.Keys(c.Mute))}
	for si, end := range s.lease[c.Name] {
		if _, there := model.FindKey(w.Fleet.Servers[si].Keys, w.Setup.Key); !there && end > w.Now {
			v.GoneLeases = append(v.GoneLeases, Lease{Server: si, EndsIn: end - w.Now})
		}
	}
	slices.SortFunc(v.GoneLeases, func(x, y Lease) int { return x.Server - y.Server })
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

func (s *Stepper) actorView(a *model.Actor) ActorView {
	w := s.w
	v := ActorView{Name: a.Name, Client: slices.Index(w.Clients, a.Client), Flight: a.Flight,
		State: int(a.State), Park: int(a.Park), Point: a.Point, Held: a.Held, Node: a.Node, Sent: a.Sent, Orphan: a.Orphan,
		Queued: slices.Contains(w.Sched.Queue, a),
		Ended:  slices.ContainsFunc(w.Sched.Deferred, func(m model.Msg) bool { return m.A == a })}
	if a.Cmd != nil {
		v.Cmd = command.Args(a.Cmd)
	}
	v.Gated = a.Park == model.ParkGate && a.Cmd != nil
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
