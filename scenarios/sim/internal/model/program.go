package model

import (
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
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
	// Check makes the client check, after its work and before its write,
	// that it still holds the lock, as careful code does (if GET key ==
	// my token): on the first node, the value its acquire wrote on the
	// lock's key (a hash's field: HEXISTS), or its watchdog's lost signal.
	// A client that finds the lock gone writes nothing and releases.
	Check bool
	// Read makes the client a reader: its critical section reads the
	// resource and writes nothing. It takes the read lock of a lock that
	// has one (lockimpl.ReadWriter), the whole lock of one that has not;
	// two readers inside together break nothing.
	Read bool
}

// DefaultRetry is the wait between acquire attempts when a Program gives none.
const DefaultRetry = 10 * time.Second

func (p Program) WithDefaults() Program {
	if p.Retry <= 0 {
		p.Retry = DefaultRetry
	}
	return p
}

// RetryWait is how long the program waits after its attempt-th failed
// attempt: Retry, doubled per attempt up to Backoff when that is set, and
// jittered with draws from rng when Jitter is.
func (p Program) RetryWait(attempt int, rng *rand.Rand) time.Duration {
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

// JitterSource is client name's fixed sequence of jitter draws.
func JitterSource(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 0x6c6f636b73746570)) // "lockstep"
}

// Note is what the program reports to the scheduler.
type Note struct {
	Kind  noteKind
	Op    trace.Op
	Err   error
	Fence int64
	Lost  <-chan struct{}
	// Validity, when the lock reports one (lockimpl.ValidityReporter):
	// what the attempt computed.
	Validity    time.Duration
	HasValidity bool
	// Nested: the note is about the nested call of a Reenter program.
	Nested bool
	// Last: a refused attempt was the last one the program makes.
	Last bool
	// Retry: how long the program waits before its next attempt.
	Retry time.Duration
	// Held: what a check found (NoteChecked); Found, the value the check
	// read on the lock's key; Watchdog, that the lock's watchdog had said
	// it was lost, and the check sent nothing.
	Held     bool
	Found    string
	Watchdog bool
}

type noteKind int

const (
	NoteOp       noteKind = iota // a new stage begins
	NoteAcquired                 // TryAcquire said yes
	NoteRefused                  // TryAcquire said no (or failed)
	NoteReleased                 // Release returned
	NoteGaveUp                   // no attempts left
	NoteChecked                  // a check before the write (Program.Check)
)
