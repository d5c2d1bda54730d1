package model

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Setup is the fixed part of a scenario: the lock, the servers, the data.
type Setup struct {
	// Key is the lock's key; default "lock:product:1001".
	Key string
	// TTL is the lease; default 30s.
	TTL time.Duration
	// Replica gives a single-instance lock's server a replica that trails
	// it by Lag and can be promoted by Failover. Redlock ignores it: its
	// servers are independent.
	Replica bool
	Lag     time.Duration
	// DownAfter is how long Sentinel waits, once the primary stops
	// answering, before it counts it down and the Sentinels elect a leader
	// that promotes the replica (Sentinel's down-after-milliseconds); the
	// election itself is not timed. Default 30s, Sentinel's own default.
	DownAfter time.Duration
	// Rejoin says the timeline brings a failed primary back as a replica
	// (Timeline.Rejoin). On real servers that would resync — and so wipe —
	// the first server, so such a scenario runs its single-instance cells
	// on embedded servers only.
	Rejoin bool
	// ClientKeys says some client takes a lock of its own (Program.Key):
	// the run's ACL user on a real server is made for Key alone, so such a
	// scenario runs on embedded servers only.
	ClientKeys bool
	// LivenessBound is how long a client may wait for a lock that no live
	// client holds before liveness counts as broken; default 2×TTL.
	LivenessBound time.Duration
	// Horizon ends a run that has not finished by then; default 5 minutes.
	Horizon time.Duration
	// Stock is the protected resource's starting value; default 100.
	Stock int
	// Nodes, when set, runs a multi-node implementation (Redlock) on this
	// many independent servers instead of the number it asks for.
	Nodes int
	// Guard is the resource's own check on every write (none by default):
	// what a database does when the lock lets two writers through.
	Guard trace.Guard
	// Cluster makes each server a Redis Cluster node holding every slot:
	// a command, or a script's declared keys, across hash slots is refused
	// with CROSSSLOT, and a script's command on a key outside its slot
	// fails (backend/slot.go). On real servers it needs a cluster (backend.Target.Slots).
	Cluster bool
}

// defaultKey is the lock's key when a Setup gives none.
const defaultKey = "lock:product:1001"

// DefaultTTL is the lease when a Setup gives none.
const DefaultTTL = 30 * time.Second

// DefaultDownAfter is Sentinel's wait when a Setup gives none: Sentinel's
// own default for down-after-milliseconds.
const DefaultDownAfter = 30 * time.Second

// WithDefaults is the setup a run uses: s with its defaults filled in.
func (s Setup) WithDefaults() Setup {
	if s.Key == "" {
		s.Key = defaultKey
	}
	if s.TTL == 0 {
		s.TTL = DefaultTTL
	}
	if s.LivenessBound == 0 {
		s.LivenessBound = 2 * s.TTL
	}
	if s.DownAfter == 0 {
		s.DownAfter = DefaultDownAfter
	}
	if s.Horizon == 0 {
		s.Horizon = 5 * time.Minute
	}
	if s.Stock == 0 {
		s.Stock = 100
	}
	return s
}

// Epoch is virtual time zero, as the servers' TIME command reports it.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
