// Package bubble runs code in testing/synctest bubbles from any binary, not
// only from tests: inside a bubble every timer, sleep, ticker and context
// deadline is on the bubble's own fake clock, which moves only when every
// goroutine of the bubble is durably blocked, and Wait says when they all
// are. The simulator runs each embedded world in a bubble of its own, so that
// lock code written with time, go statements and contexts runs as written,
// on virtual time.
//
// synctest needs a *testing.T. A test binary's and any other binary's alike
// get one from a single long-lived host test that this package starts the
// first time it is used (host.go).
package bubble

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// A Bubble is a synctest bubble whose root goroutine runs the functions
// handed to Do, one at a time. Between calls the root waits outside the
// bubble's reach, so the bubble's clock stands still: time passes only while
// a call sleeps or waits on the bubble's timers.
type Bubble struct {
	calls  chan func()
	closed chan struct{}
	err    error // set before closed is closed
}

// ErrDeadlock is what Close returns when goroutines of the bubble were left
// blocked for good after its root had finished.
var ErrDeadlock = errors.New("bubble: goroutines were left blocked")

// New starts a bubble.
func New() *Bubble {
	b := &Bubble{calls: make(chan func()), closed: make(chan struct{})}
	started := make(chan struct{})
	hostT(func(t *testing.T) {
		defer close(b.closed)
		defer func() {
			if p := recover(); p != nil {
				b.err = fmt.Errorf("%w: %v", ErrDeadlock, p)
			}
		}()
		synctest.Test(t, func(*testing.T) {
			close(started)
			for f := range b.calls {
				f()
			}
		})
	})
	<-started
	return b
}

// Do runs f on the bubble's root goroutine and returns when f does. A panic
// in f is raised again in the caller.
func (b *Bubble) Do(f func()) {
	if p := <-b.Start(f); p != nil {
		panic(p)
	}
}

// Close ends the root goroutine and waits until every goroutine of the
// bubble has ended, for at most limit of wall time. Goroutines left blocked
// for good make it an error wrapping ErrDeadlock; goroutines still running
// or blocked outside the bubble's reach (a mutex, the network) after limit,
// ErrStillRunning: they are left to end on their own.
func (b *Bubble) Close(limit time.Duration) error {
	close(b.calls)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-b.closed:
		return b.err
	case <-timer.C:
		return ErrStillRunning
	}
}

// ErrStillRunning is what Close returns when goroutines of the bubble did
// not end within its limit.
var ErrStillRunning = errors.New("bubble: goroutines still running")

// Wait blocks until every other goroutine of the caller's bubble is durably
// blocked: on a channel, select, sync.Cond or sync.WaitGroup of the bubble,
// or a sleep or timer of its clock. It must be called from a bubble's
// goroutine.
func Wait() { synctest.Wait() }

// Deadlocked says whether err reports goroutines left blocked.
func Deadlocked(err error) bool { return errors.Is(err, ErrDeadlock) }

// Start runs f on the bubble's root goroutine like Do, without waiting: the
// channel it returns receives f's panic, or nil, when f returns.
func (b *Bubble) Start(f func()) <-chan any {
	done := make(chan any, 1)
	b.calls <- func() {
		defer func() { done <- recover() }()
		f()
	}
	return done
}
