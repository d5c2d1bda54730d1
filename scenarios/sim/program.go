package sim

import (
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Program is what one client's business goroutine does: prepare outside
// the lock, take the lock (retrying), read the protected resource, work,
// write it back, release.
type Program struct {
	// Start is when the client begins, from time zero.
	Start time.Duration
	// Retry is the wait between failed acquire attempts.
	Retry time.Duration
	// Attempts caps the acquire attempts; 0 means keep trying.
	Attempts int
	// Prep is work the client does before it asks for the lock, outside the
	// critical section (computing, calling other services); Work is what
	// remains inside. 0: it asks for the lock as it starts.
	Prep time.Duration
	// Work is how long the critical section takes between read and write.
	Work time.Duration
	// Fail, when set, makes the work inside the critical section end with
	// an error after Fail instead of running its whole Work: the client
	// skips its write, and its release still runs, as a finally block does
	// (try { … } finally { unlock }). 0: the work succeeds.
	Fail time.Duration
	// Backoff, when set, doubles the wait after every failed attempt,
	// starting at Retry, up to Backoff (capped exponential backoff).
	Backoff time.Duration
	// Jitter draws each wait from [w/2, w] where w is what Retry and
	// Backoff give ("equal jitter"), so that waiters that failed together
	// do not come back together. The draws are deterministic: a fixed
	// sequence per client name.
	Jitter bool
	// Reenter makes the critical section call code that takes the same lock
	// again (a nested call), retrying every Retry until it gets it, and give
	// it back before the outer section goes on.
	Reenter bool
	// Lease is a lease the client passes to the lock explicitly, as
	// Redisson's lock(leaseTime) does (lockimpl.Env.Lease): its lock's TTL
	// instead of the setup's. 0: it passes none.
	Lease time.Duration
	// Key is the lock's key the client takes, when not the setup's: a lock
	// of its own (lock:order:8801 beside lock:orders), judged apart, with
	// a row of data of its own. Embedded servers only.
	Key string
}

// DefaultRetry is the wait between acquire attempts when a Program gives none.
const DefaultRetry = 10 * time.Second

func (p Program) withDefaults() Program {
	if p.Retry <= 0 {
		p.Retry = DefaultRetry
	}
	return p
}

// retryWait is how long the program waits after its attempt-th failed
// attempt: Retry, doubled per attempt up to Backoff when that is set, and
// jittered with draws from rng when Jitter is.
func (p Program) retryWait(attempt int, rng *rand.Rand) time.Duration {
	d := p.Retry
	if p.Backoff > 0 {
		for i := 1; i < attempt && d < p.Backoff; i++ {
			d *= 2
		}
		d = min(d, max(p.Backoff, p.Retry))
	}
	if p.Jitter && rng != nil {
		// Equal jitter, in whole milliseconds: half the wait, plus a draw
		// from the other half.
		half := d / 2
		d = half + time.Duration(rng.Int64N(int64(half/time.Millisecond)+1))*time.Millisecond
	}
	return d
}

// jitterSource is client name's fixed sequence of jitter draws.
func jitterSource(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0x6c6f636b73746570)) // "lockstep"
}

// note is what the program reports to the scheduler.
type note struct {
	kind  noteKind
	op    trace.Op
	err   error
	fence int64
	lost  <-chan struct{}
	// validity, when the lock reports one (lockimpl.ValidityReporter):
	// what the attempt computed.
	validity    time.Duration
	hasValidity bool
	// nested: the note is about the nested call of a Reenter program.
	nested bool
	// last: a refused attempt was the last one the program makes.
	last bool
	// retry: how long the program waits before its next attempt.
	retry time.Duration
}

type noteKind int

const (
	noteOp       noteKind = iota // a new stage begins
	noteAcquired                 // TryAcquire said yes
	noteRefused                  // TryAcquire said no (or failed)
	noteReleased                 // Release returned
	noteGaveUp                   // no attempts left
)

func (s *actorSide) report(a *actor, n note) {
	if s.closing.Load() {
		return
	}
	s.send(msg{a: a, kind: msgNote, note: n})
	_ = a.wait()
}

// pointAt parks the business goroutine before it touches the resource; the
// scheduler performs the read or write when it lets the actor pass.
func (s *actorSide) pointAt(a *actor, op trace.Op) error {
	if s.closing.Load() {
		return redis.ErrClosed
	}
	s.send(msg{a: a, kind: msgPoint, point: op})
	return a.wait()
}

// runProgram is the business goroutine of client c.
func (s *actorSide) runProgram(ctx context.Context, a *actor) {
	c, p := a.client, a.client.prog
	lock := c.lock
	if p.Prep > 0 {
		s.report(a, note{kind: noteOp, op: trace.OpPrep})
		if s.sleep(ctx, p.Prep) != nil {
			return
		}
	}
	for attempt := 1; ; attempt++ {
		s.report(a, note{kind: noteOp, op: trace.OpAcquire})
		ok, err := lock.TryAcquire(ctx)
		if errors.Is(err, redis.ErrClosed) {
			return
		}
		var validity time.Duration
		vr, hasValidity := lock.(lockimpl.ValidityReporter)
		if hasValidity {
			validity = vr.Validity()
		}
		if ok {
			n := note{kind: noteAcquired, err: err, validity: validity, hasValidity: hasValidity}
			if f, isF := lock.(lockimpl.Fencer); isF {
				n.fence = f.Fence()
			}
			if wt, isW := lock.(lockimpl.Watcher); isW {
				n.lost = wt.Lost()
			}
			s.report(a, n)
			break
		}
		last := p.Attempts > 0 && attempt >= p.Attempts
		wait := p.retryWait(attempt, c.jitter)
		s.report(a, note{kind: noteRefused, err: err, validity: validity, hasValidity: hasValidity, last: last, retry: wait})
		if last {
			s.report(a, note{kind: noteGaveUp})
			return
		}
		if s.sleep(ctx, wait) != nil {
			return
		}
	}
	s.report(a, note{kind: noteOp, op: trace.OpRead})
	if s.pointAt(a, trace.OpRead) != nil {
		return
	}
	if p.Reenter && !s.reenter(ctx, a) {
		return
	}
	s.report(a, note{kind: noteOp, op: trace.OpWork})
	if p.Fail > 0 {
		// The work throws: no write, and the finally block releases.
		if s.sleep(ctx, p.Fail) != nil {
			return
		}
		s.report(a, note{kind: noteOp, op: trace.OpFail})
	} else {
		if s.sleep(ctx, p.Work) != nil {
			return
		}
		s.report(a, note{kind: noteOp, op: trace.OpWrite})
		if s.pointAt(a, trace.OpWrite) != nil {
			return
		}
	}
	s.report(a, note{kind: noteOp, op: trace.OpRelease})
	err := lock.Release(ctx)
	if errors.Is(err, redis.ErrClosed) {
		return
	}
	s.report(a, note{kind: noteReleased, err: err})
}

// reenter is the nested call of a Reenter program: it takes the lock the
// client already holds, retrying until it gets it, then gives it back. It
// returns false when the run is closing.
func (s *actorSide) reenter(ctx context.Context, a *actor) bool {
	lock, p := a.client.lock, a.client.prog
	s.report(a, note{kind: noteOp, op: trace.OpReenter})
	for {
		ok, err := lock.TryAcquire(ctx)
		if errors.Is(err, redis.ErrClosed) {
			return false
		}
		if ok {
			s.report(a, note{kind: noteAcquired, err: err, nested: true})
			break
		}
		s.report(a, note{kind: noteRefused, err: err, nested: true})
		if s.sleep(ctx, p.Retry) != nil {
			return false
		}
	}
	s.report(a, note{kind: noteOp, op: trace.OpLeave})
	err := lock.Release(ctx)
	if errors.Is(err, redis.ErrClosed) {
		return false
	}
	s.report(a, note{kind: noteReleased, err: err, nested: true})
	return true
}
