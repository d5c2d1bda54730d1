package backend

import (
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file is a run's real servers as its caller gives them (Target):
// their options, the prefix of the run's keys, the time scale, the
// constructor of their backends, a cluster's slots and the Sentinels; and
// the errors for a run they cannot host.

// Target runs a world on real Redis servers instead of embedded ones. Time is
// real, scaled: one virtual second lasts Second. Every key of the run lives
// under Prefix; nothing else on the servers is read or written.
type Target struct {
	// Nodes are the servers. Single-instance locks use Nodes[0]; Redlock the
	// first five. Every client of a run — the lock clients and the backends'
	// own observers — is built from these options: address and network
	// (TCP or a unix socket), user, password, database and TLS.
	Nodes []*redis.Options
	// Replica replicates Nodes[0]. Scenarios with a replica reconfigure it
	// (REPLICAOF), so it must be the user's to reconfigure. Nil: none.
	Replica *redis.Options
	// Prefix goes in front of every key, e.g. "lockstep:3f9a1c2e:".
	Prefix string
	// Second is how long one virtual second lasts on the wall clock.
	Second time.Duration
	// NewBackend builds the backend of one of these servers (opts is one of
	// Nodes, or Replica) for one run. The engine does not talk to real
	// servers itself: whoever builds the target gives it this (realredis.
	// Connect gives realserver.New). A run on a target without it fails.
	NewBackend func(run *RealRun, opts *redis.Options) Backend
	// NoACL runs the lock clients as the user the options name instead of
	// an ACL user made for each run (Backend.Guard): for a server without
	// ACLs (Redis before 6) or a user who may not make one. The gate then
	// checks what it can itself: a command's name and the keys it names,
	// not what a script does.
	NoACL bool
	// Slots, when set, say the servers are a Redis Cluster's masters, each
	// with the hash slots it serves; Nodes is then empty. A run's
	// single-instance lock runs on the master that serves the slot of the
	// run's lock key (NodeFor), and a lesson whose setup says cluster
	// runs only on such a target. Locks on several servers (Redlock) need
	// independent ones: they do not run on a cluster.
	Slots []SlotRange
	// Sentinels, when set, has a Sentinel group decide the failover of
	// the first server in the lessons with a replica (package sim's sentinel.go), and
	// SentinelSecond is the time scale of those runs at least: Sentinel's
	// detection and election take seconds of real time.
	Sentinels      WatchSentinels
	SentinelSecond time.Duration

	mu     sync.Mutex
	closes []func() error
}

// SlotRange is a range of a cluster's hash slots, From to To inclusive,
// and the master that serves them.
type SlotRange struct {
	From, To int
	Master   *redis.Options
}

// NodeFor is the master of a cluster target that serves key's slot; nil
// when none does (or the target is not a cluster).
func (t *Target) NodeFor(key string) *redis.Options {
	slot := HashSlot(key)
	for _, r := range t.Slots {
		if r.From <= slot && slot <= r.To {
			return r.Master
		}
	}
	return nil
}

// Margin is the real time of half a scenario second: how far a timeline
// keeps its steps from a TTL boundary. A run whose drift exceeds it may have
// a verdict off.
func (t *Target) Margin() time.Duration { return t.Second / 2 }

// RunSecond is the time scale of a run of a lesson with an implementation
// on nodes servers, replica: the lesson's setup has a replica (sim.Setup.
// Replica). It is Second, or SentinelSecond if more when the Sentinels
// decide its failover.
func (t *Target) RunSecond(replica bool, nodes int) time.Duration {
	if t.Sentinels != nil && replica && nodes == 1 {
		return max(t.Second, t.SentinelSecond)
	}
	return t.Second
}

// RunMargin is Margin for such a run: half of its scenario second.
func (t *Target) RunMargin(replica bool, nodes int) time.Duration {
	return t.RunSecond(replica, nodes) / 2
}

// Sub is a target on the same servers with Prefix extended by suffix: one
// run among several of the same command, each under its own keys. Closing
// the target stays with its parent.
func (t *Target) Sub(suffix string) *Target {
	return &Target{Nodes: t.Nodes, Replica: t.Replica, Prefix: t.Prefix + suffix, Second: t.Second,
		NewBackend: t.NewBackend, NoACL: t.NoACL, Slots: t.Slots,
		Sentinels: t.Sentinels, SentinelSecond: t.SentinelSecond}
}

// OnClose registers f to run when the target is closed (realredis keeps its
// lease on the replica this way).
func (t *Target) OnClose(f func() error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closes = append(t.closes, f)
}

// Close releases what the target holds on the servers beyond single runs.
// It is safe to call more than once.
func (t *Target) Close() error {
	t.mu.Lock()
	closes := t.closes
	t.closes = nil
	t.mu.Unlock()
	var errs []error
	for i := len(closes) - 1; i >= 0; i-- {
		errs = append(errs, closes[i]())
	}
	return errors.Join(errs...)
}

// ErrNeedsReplica is returned for a scenario with a replica when the target
// has none.
var ErrNeedsReplica = errors.New("this scenario needs a replica of the first server")

// ErrEmbeddedOnly is returned for a run real servers cannot host without
// touching more than the run's own keys.
var ErrEmbeddedOnly = errors.New("this run would make the first server a replica, which wipes it; it runs on embedded servers only")

// ErrNeedsCluster is returned for a scenario on a Redis Cluster when the
// target's servers are not a cluster's.
var ErrNeedsCluster = errors.New("this scenario runs on a Redis Cluster")

// ErrNeedsNodes is returned for an implementation that needs more servers
// than the target has.
var ErrNeedsNodes = errors.New("not enough servers for this implementation")

// ErrNoBackend is returned for a target that cannot reach its servers: it
// has no NewBackend.
var ErrNoBackend = errors.New("the target has no backend for its servers (Target.NewBackend); realredis.Connect builds one that has")
