package view

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Keyed is what a fault's memory is keyed by: whom its moves strike.
type Keyed int

// What a fault's memory may be keyed by; the zero Keyed, nothing: its
// moves leave nothing behind (crash, failover: what they did, the world
// shows).
const (
	KeyedByClient Keyed = iota + 1 // a client, by index into State.Clients
	KeyedByNode                    // a logical node, by index into State.Nodes
)

// FaultMemory is what one fault's moves have left behind: whom they have
// struck, and when each is due, for a memory of times.
type FaultMemory struct {
	Fault trace.Fault
	// By is what its targets are: clients or logical nodes.
	By Keyed
	// Struck are the targets it has struck, in order.
	Struck []Strike
}

// Strike is one target a fault has struck.
type Strike struct {
	// Target is an index into State.Clients or State.Nodes, as
	// FaultMemory.By says.
	Target int
	// DueIn is when it is due, from now, in a memory of times (a server
	// down until the delayed restart brings it back); 0 in another.
	DueIn time.Duration
}
