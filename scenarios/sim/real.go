package sim

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// This file is the engine's side of a run on real servers: the Target, and
// the run's clock (real time, scaled). The servers themselves are Backends
// from Target.NewBackend (package realserver).

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
	// the first server in the lessons with a replica (sentinel.go), and
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

// RunSecond is the time scale of a run of a lesson whose setup is s with
// an implementation on nodes servers: Second, or SentinelSecond if more
// when the Sentinels decide its failover.
func (t *Target) RunSecond(s Setup, nodes int) time.Duration {
	if t.Sentinels != nil && s.Replica && nodes == 1 {
		return max(t.Second, t.SentinelSecond)
	}
	return t.Second
}

// RunMargin is Margin for such a run: half of its scenario second.
func (t *Target) RunMargin(s Setup, nodes int) time.Duration { return t.RunSecond(s, nodes) / 2 }

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

// RealRun is one run on a Target, as the engine keeps it and the backends
// of its servers see it: where its keys are, its context, and its clock.
// Virtual time is wall-clock time since Start, one virtual second lasting
// Target.Second; the engine sleeps until each virtual deadline has come.
type RealRun struct {
	// Target is where the run runs: its servers, the prefix of its keys
	// (a backend reads and writes nothing else), its time scale.
	Target *Target
	// Ctx is the run's context. A signal cancels it: a backend then cuts
	// its connections, so that nothing waits on a server that stopped
	// answering, and bounds every exchange with the server by it.
	Ctx context.Context

	f     float64   // real time per virtual time
	start time.Time // virtual time zero on the wall clock

	keysMu sync.Mutex
	keys   []string // the keys the run's commands named, sorted

	early, late time.Duration // the least and the most an event was late
}

// Start is the wall-clock instant of virtual time zero: when the engine,
// the servers checked and the replica in sync, starts the run's clock. It
// is zero before.
func (r *RealRun) Start() time.Time { return r.start }

// Keys are the keys the run's lock clients have named so far (their
// commands' key arguments, the lock's key from the start), sorted: what a
// backend reads for a snapshot, instead of scanning a keyspace that may
// hold millions of keys that are not the run's. A key a script writes
// without declaring it in KEYS is not among them (Redis Cluster refuses
// such scripts too); the cleanup scans for it at the end.
func (r *RealRun) Keys() []string {
	r.keysMu.Lock()
	defer r.keysMu.Unlock()
	return slices.Clone(r.keys)
}

// name adds the keys of a command a lock client is about to send.
func (r *RealRun) name(keys ...string) {
	r.keysMu.Lock()
	defer r.keysMu.Unlock()
	for _, k := range keys {
		if i, found := slices.BinarySearch(r.keys, k); !found {
			r.keys = slices.Insert(r.keys, i, k)
		}
	}
}

// ToVirtual converts a duration of real time (the lock's, the servers')
// into virtual time.
func (r *RealRun) ToVirtual(d time.Duration) time.Duration {
	return time.Duration(float64(d) / r.f)
}

// ToReal converts virtual time into real time, in whole milliseconds (the
// resolution of PX).
func (r *RealRun) ToReal(d time.Duration) time.Duration {
	return time.Duration(float64(d) * r.f).Round(time.Millisecond)
}

// toVirtual converts a duration of the lock's time into virtual time.
func (w *World) toVirtual(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return w.real.ToVirtual(d)
}

// ttlTolerance is how far apart two readings of a TTL may be and still be
// the same lease. On embedded servers readings are exact. On real ones a
// reading is off by up to a round trip to the server, which grows under
// load; a tenth of the lease is well above that and well below what a
// renewal adds (a third of the lease and more).
func (w *World) ttlTolerance() time.Duration {
	if w.real == nil {
		return 0
	}
	return max(w.toVirtual(3*time.Millisecond), w.setup.TTL/10)
}

// toReal converts virtual time into the lock's time, in whole milliseconds
// (the resolution of PX).
func (w *World) toReal(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return w.real.ToReal(d)
}

// catchUp moves the world's clock to the wall clock's virtual time, to the
// tenth of a second, after a command that blocked on a real server.
func (w *World) catchUp() {
	t := w.toVirtual(time.Since(w.real.start)).Round(100 * time.Millisecond)
	if t > w.now {
		w.advance(t)
	}
}

// waitUntil sleeps on the wall clock until virtual time t has come, plus a
// millisecond so that a key due at t has expired.
func (w *World) waitUntil(t time.Duration) {
	r := w.real
	deadline := r.start.Add(time.Duration(float64(t)*r.f) + time.Millisecond)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-r.Ctx.Done():
		w.fail(r.Ctx.Err())
	}
}

// runErr is err, unless the run was interrupted: then the interruption is
// what the caller reports.
func (w *World) runErr(err error) error {
	if w.real != nil && w.real.Ctx.Err() != nil {
		return w.real.Ctx.Err()
	}
	return err
}

// Unreachable says whether err, a run's error, is a server that could not
// be reached or stopped answering: a connection refused, reset or closed
// under a command, a call that timed out. The engine's own faults (a
// server the timeline took down, a partition) and an interruption are not.
func Unreachable(err error) bool {
	var down *command.NodeDownError
	var cut *command.PartitionError
	if err == nil || errors.As(err, &down) || errors.As(err, &cut) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// LeftBehindError is a cleanup that could not remove all a run put on a
// server: its message says what is left there, and where.
type LeftBehindError struct{ Err error }

func (e *LeftBehindError) Error() string { return e.Err.Error() }
func (e *LeftBehindError) Unwrap() error { return e.Err }

// LeftBehind marks err, a cleanup's, as naming what a run left on a server.
func LeftBehind(err error) error { return &LeftBehindError{Err: err} }

// LeftBehinds are the LeftBehindErrors in err's tree (errors.Join, %w), in
// order: what a run, or several, left on the servers.
func LeftBehinds(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
		case *LeftBehindError:
			out = append(out, x)
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				walk(y)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}
