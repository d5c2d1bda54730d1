package model

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Server is one server of a run: the backend that serves a logical node
// (or a replica of one), whether it is up, its role, and what the run last
// read of its keys.
type Server struct {
	Name    string
	B       backend.Backend
	Up      bool
	Role    string
	Replica int // index of its replica, -1 for none
	Primary int // index of its primary, -1 for none
	Lag     time.Duration
	Keys    []trace.KeyState // as of the last event
	// ReadAt is when keys were read, on the wall clock (real servers):
	// how long their TTLs have run down since.
	ReadAt  time.Time
	Ahead   time.Duration       // how far its clock has jumped ahead
	Latency time.Duration       // how late a command reaches it (Timeline.Slow)
	Scripts command.ScriptCache // the scripts the run gave it since it started
}

// ReplEntry is one write on its way from a primary to its replica. Redis
// replicates asynchronously: the primary answers the client first and ships
// the write afterwards, so for a while (the lag) the replica does not have it.
type ReplEntry struct {
	Seq      int // order of queuing, for WAIT
	Due      time.Duration
	Replica  int
	Key      string
	Deleted  bool
	State    trace.KeyState // as the snapshot showed it
	Value    backend.Stored // whole, for the replica
	ExpireAt time.Duration  // absolute virtual time, 0 for none
}

func FindKey(keys []trace.KeyState, k string) (trace.KeyState, bool) {
	for _, ks := range keys {
		if ks.Key == k {
			return ks, true
		}
	}
	return trace.KeyState{}, false
}

func SameKeys(a, b []trace.KeyState) bool {
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

// SentinelPoll is how often, in virtual time, a world waiting for the
// Sentinels' failover looks at what they said.
const SentinelPoll = 100 * time.Millisecond

// CloseLimit bounds how long closing a world waits for its goroutines.
const CloseLimit = 2 * time.Second
