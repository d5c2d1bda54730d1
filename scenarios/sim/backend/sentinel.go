package backend

import (
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file is what a real run's failover by Redis Sentinel needs
// (Target.Sentinels): the Sentinels watch the first server, and when the
// timeline kills it they decide the failover themselves, in real time. The
// engine tells them nothing but that the primary is gone
// (SentinelWatch.Down), and shows what they say (SentinelEvent).

// SentinelWatch is one run's master on a Sentinel group.
type SentinelWatch interface {
	// Down makes the primary unreachable to the Sentinels, from now on.
	Down()
	// Events are what the Sentinels have said about the run's master
	// since the last call, in the order they came.
	Events() []SentinelEvent
	// Close stops watching and has every Sentinel forget the run's
	// master; the engine calls it before it cleans up the servers.
	Close() error
}

// SentinelEvent is one message a Sentinel published about the run's
// master: Kind is its channel ("+sdown", "+odown", "+switch-master", …),
// Sentinel the address of the Sentinel that said it, Addr the instance it
// is about (for +switch-master, the new master), At when it came.
type SentinelEvent struct {
	Kind, Sentinel, Instance, Addr string
	At                             time.Time
}

// WatchSentinels starts a run's watch: the Sentinels monitor primary, whose
// replica is replica, under name, with down-after and the failover timeout
// given (both real time), and know the replica and each other when it
// returns.
type WatchSentinels func(run *RealRun, name string, primary, replica *redis.Options, downAfter, timeout time.Duration) (SentinelWatch, error)

// Cutter is a Follower whose stream can be cut without promoting it: the
// Sentinels promote it themselves.
type Cutter interface {
	Follower
	// Cut ends the replication stream from a primary that died; what was
	// still on its way (chunks) never arrives.
	Cut() (lost int)
}

// SentinelName is the master name on the Sentinels of a run whose keys are
// under prefix: "lockstep-" and the prefix with dashes for its colons
// ("lockstep-lockstep-3f9a1c2e-failover-uuid-lua"), a name of the run's
// own that lockstep clean can tell from the user's.
func SentinelName(prefix string) string {
	return "lockstep-" + strings.NewReplacer(":", "-", "{", "", "}", "").Replace(strings.TrimSuffix(prefix, ":"))
}
