package lockimpl_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// hangGuard only turns a deadlocked wait into a test failure with a message
// instead of a hang until `go test -timeout`. No test outcome depends on it:
// every wait below is released by an event (a sleeper parking, a goroutine
// exiting, a channel closing), never by time passing.
const hangGuard = 10 * time.Second

// fakeClock is a manual lockimpl.Clock. Time moves only when the test calls
// Advance; Sleep parks the caller until Advance moves the clock past its
// deadline or its context is done. The test can wait until a given number of
// sleepers are parked, which is how it knows a watchdog has finished a tick
// and is sleeping again.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
	slept    []time.Duration // every d passed to Sleep, in order
	changed  chan struct{}   // closed and replaced whenever sleepers changes
	hold     *cancelHold
}

// cancelHold keeps a sleeper whose context was cancelled inside Sleep (still
// registered) until the test opens the gate.
type cancelHold struct {
	seen chan struct{} // closed when a cancelled sleeper is being held
	once sync.Once
	gate chan struct{}
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

var _ lockimpl.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{
		now:     time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		changed: make(chan struct{}),
	}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	if d <= 0 {
		c.mu.Unlock()
		return ctx.Err()
	}
	s := &sleeper{until: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.notifyLocked()
	c.mu.Unlock()

	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		h := c.hold
		c.mu.Unlock()
		if h != nil {
			h.once.Do(func() { close(h.seen) })
			<-h.gate
		}
		c.mu.Lock()
		c.removeLocked(s)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock forward by d and wakes every sleeper whose deadline
// has been reached. Woken sleepers are unregistered before Advance returns.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if !s.until.After(c.now) {
			close(s.wake)
			continue
		}
		kept = append(kept, s)
	}
	c.sleepers = kept
	c.notifyLocked()
}

// HoldCancelled makes a sleeper whose context is cancelled stay inside Sleep
// until open is called; seen is closed once one is held. It lets a test see
// what happens while a cancelled goroutine has not yet finished.
func (c *fakeClock) HoldCancelled() (seen <-chan struct{}, open func()) {
	h := &cancelHold{seen: make(chan struct{}), gate: make(chan struct{})}
	c.mu.Lock()
	c.hold = h
	c.mu.Unlock()
	var once sync.Once
	return h.seen, func() { once.Do(func() { close(h.gate) }) }
}

// Sleeping is how many goroutines are parked in Sleep right now.
func (c *fakeClock) Sleeping() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// Slept returns a copy of every duration passed to Sleep so far.
func (c *fakeClock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// WaitSleeping blocks until exactly n goroutines are parked in Sleep.
func (c *fakeClock) WaitSleeping(t *testing.T, n int) {
	t.Helper()
	guard := time.After(hangGuard)
	for {
		c.mu.Lock()
		got, ch := len(c.sleepers), c.changed
		c.mu.Unlock()
		if got == n {
			return
		}
		select {
		case <-ch:
		case <-guard:
			t.Fatalf("fake clock: waiting for %d sleepers, %d parked", n, got)
		}
	}
}

func (c *fakeClock) removeLocked(s *sleeper) {
	for i, x := range c.sleepers {
		if x == s {
			c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
			c.notifyLocked()
			return
		}
	}
}

func (c *fakeClock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// goTracker is a test Env.Go: it runs fn in an ordinary goroutine and
// records its name and when it has returned.
type goTracker struct {
	mu     sync.Mutex
	names  []string
	exited []chan struct{}
}

func (g *goTracker) Go(ctx context.Context, name string, fn func(context.Context)) {
	done := make(chan struct{})
	g.mu.Lock()
	g.names = append(g.names, name)
	g.exited = append(g.exited, done)
	g.mu.Unlock()
	go func() {
		defer close(done)
		fn(ctx)
	}()
}

// Started is how many goroutines were started, with their names.
func (g *goTracker) Started() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.names...)
}

// Exited reports whether the i-th goroutine has returned.
func (g *goTracker) Exited(i int) bool {
	select {
	case <-g.done(i):
		return true
	default:
		return false
	}
}

// WaitExited blocks until the i-th goroutine started has returned.
func (g *goTracker) WaitExited(t *testing.T, i int) {
	t.Helper()
	select {
	case <-g.done(i):
	case <-time.After(hangGuard):
		t.Fatalf("goroutine %d (%s) did not exit", i, g.Started()[i])
	}
}

func (g *goTracker) done(i int) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.exited[i]
}
