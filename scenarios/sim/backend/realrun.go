package backend

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
)

// This file is one run on real servers as its backends see it (RealRun):
// its keys, its context and its clock, real time scaled; and what its
// errors say: a server out of reach (Unreachable), keys a cleanup left
// behind (LeftBehind).

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

// NewRealRun is a run on target, with ctx its context, one virtual second
// lasting second on the wall clock.
func NewRealRun(ctx context.Context, target *Target, second time.Duration) *RealRun {
	return &RealRun{Target: target, Ctx: ctx, f: float64(second) / float64(time.Second)}
}

// SetStart starts the run's clock: virtual time zero is t on the wall
// clock. The engine calls it as the run starts, and again to move the
// start by the time a paced run stood still.
func (r *RealRun) SetStart(t time.Time) { r.start = t }

// WallAt is the wall-clock instant of virtual time t.
func (r *RealRun) WallAt(t time.Duration) time.Time {
	return r.start.Add(time.Duration(float64(t) * r.f))
}

// Drift notes how late on the wall clock an event of virtual time now
// comes, and returns the spread of those delays so far: the run's drift.
// first: the event is the trace's first.
func (r *RealRun) Drift(now time.Duration, first bool) time.Duration {
	late := time.Since(r.start) - time.Duration(float64(now)*r.f)
	if first || late < r.early {
		r.early = late
	}
	r.late = max(r.late, late)
	return r.late - r.early
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

// AddKeys adds the keys of a command a lock client is about to send.
func (r *RealRun) AddKeys(keys ...string) {
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

// Error says what is left, and where.
func (e *LeftBehindError) Error() string { return e.Err.Error() }

// Unwrap is the cleanup's error.
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
