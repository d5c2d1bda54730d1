package view

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

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
	// Actors in creation order. ClockFree: the lock keeps no time of its
	// own (lockimpl.Info.ClockFree), so that when an actor last woke
	// (ActorView.WokeAgo) tells no two states apart.
	Actors    []ActorView
	ClockFree bool
	Resource  ResourceView
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
	// Watching: its WATCH is on, since WatchedAgo (negative): whether a
	// watched key changed since, which decides its EXEC, follows from when.
	Watching   bool
	WatchedAgo time.Duration
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
