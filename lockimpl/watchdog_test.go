package lockimpl_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// watchdogNames are the implementations that renew their lease in the
// background.
var watchdogNames = []string{"uuid-lua-watchdog-uncapped", "uuid-lua-watchdog", "fenced"}

// cappedNames are the watchdog locks that stop renewing at a cap.
var cappedNames = []string{"uuid-lua-watchdog", "fenced"}

// Compile-time checks: the watchdog locks report loss, fenced hands out
// fencing tokens.
var (
	_ lockimpl.Watcher = (*lockimpl.UUIDLuaWatchdog)(nil)
	_ lockimpl.Watcher = (*lockimpl.Fenced)(nil)
	_ lockimpl.Fencer  = (*lockimpl.Fenced)(nil)
)

// renewals counts the renew scripts h's client sends.
func renewals(t *testing.T, h *handle) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	h.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		if scriptName(cmd) == "renew" {
			n.Add(1)
		}
		return nil
	}})
	return &n
}

func lostOf(t *testing.T, h *handle) <-chan struct{} {
	t.Helper()
	w, ok := h.Lock.(lockimpl.Watcher)
	if !ok {
		t.Fatalf("%T does not implement Watcher", h.Lock)
	}
	return w.Lost()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// acquireWatched takes the lock and waits until its watchdog is parked in its
// first sleep.
func acquireWatched(t *testing.T, h *handle) {
	t.Helper()
	mustAcquire(t, h)
	h.clock.WaitSleeping(t, 1)
	if got := h.gos.Started(); len(got) != 1 || got[0] != "watchdog" {
		t.Fatalf("goroutines started through Env.Go = %v, want [watchdog]", got)
	}
}

func TestWatchdogRenewsEveryThirdOfTTL(t *testing.T) {
	// The watchdog renews at TTL/3 (看门狗续期): not before, and each renewal
	// puts the lease back up to the full TTL, so work longer than the TTL
	// keeps the lock.
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			b := cl.handle(t, name, "B")
			n := renewals(t, a)
			acquireWatched(t, a)
			every := testTTL / 3

			m.FastForward(every - time.Millisecond)
			a.clock.Advance(every - time.Millisecond)
			if got := a.clock.Sleeping(); got != 1 || n.Load() != 0 {
				t.Fatalf("before TTL/3: %d sleeping, %d renewals; want still asleep, none", got, n.Load())
			}
			a.clock.Advance(time.Millisecond)
			a.clock.WaitSleeping(t, 1) // renewed and asleep again
			if got := n.Load(); got != 1 {
				t.Fatalf("renewals at TTL/3 = %d, want 1", got)
			}
			if got := m.TTL(testKey); got != testTTL {
				t.Fatalf("TTL after renewal = %v, want back up to %v", got, testTTL)
			}

			// Three more ticks: 4×TTL/3 > TTL of work, and the lock is still ours.
			for i := 2; i <= 4; i++ {
				m.FastForward(every)
				a.clock.Advance(every)
				a.clock.WaitSleeping(t, 1)
				if got := n.Load(); got != int64(i) {
					t.Fatalf("renewals = %d, want %d", got, i)
				}
				if got := m.TTL(testKey); got != testTTL {
					t.Fatalf("tick %d: TTL = %v, want %v", i, got, testTTL)
				}
			}
			mustNotAcquire(t, b)
			if got := holderOf(t, m); got != "A#1" {
				t.Fatalf("holder = %q, want A#1", got)
			}
			for i, d := range a.clock.Slept() {
				if d != every {
					t.Errorf("sleep %d = %v, want TTL/3 = %v", i, d, every)
				}
			}
			if isClosed(lostOf(t, a)) {
				t.Error("Lost closed while the lock was renewed fine")
			}
			mustRelease(t, a)
		})
	}
}

func TestWatchdogStopsAfterMaxRenewals(t *testing.T) {
	// The renewal cap: a live process whose business code is stuck must not
	// keep the lock forever (看门狗无限续期). After DefaultMaxRenewals renewals
	// the watchdog exits and the lease runs out.
	for _, name := range cappedNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			b := cl.handle(t, name, "B")
			n := renewals(t, a)
			acquireWatched(t, a)
			every := testTTL / 3

			for i := 1; i <= lockimpl.DefaultMaxRenewals; i++ {
				m.FastForward(every)
				a.clock.Advance(every)
				if i < lockimpl.DefaultMaxRenewals {
					a.clock.WaitSleeping(t, 1)
				} else {
					a.gos.WaitExited(t, 0)
				}
				if got := n.Load(); got != int64(i) {
					t.Fatalf("renewals = %d, want %d", got, i)
				}
				if got := m.TTL(testKey); got != testTTL {
					t.Fatalf("renewal %d: TTL = %v, want %v", i, got, testTTL)
				}
			}
			if got := a.clock.Sleeping(); got != 0 {
				t.Fatalf("%d sleepers after the cap, want the watchdog gone", got)
			}

			// No further renewal however far time moves: the lease runs out.
			a.clock.Advance(time.Hour)
			m.FastForward(testTTL)
			if got := n.Load(); got != lockimpl.DefaultMaxRenewals {
				t.Fatalf("renewals after the cap = %d, want %d", got, lockimpl.DefaultMaxRenewals)
			}
			if m.Exists(testKey) {
				t.Fatal("lock still there a full TTL after the last renewal")
			}
			mustAcquire(t, b)
			mustRelease(t, b)
		})
	}
}

func TestUncappedWatchdogRenewsPastTheCap(t *testing.T) {
	// The watchdog's own trap: without a cap it renews for as long as the
	// process lives, so a stuck holder keeps the lock and B never gets it.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "uuid-lua-watchdog-uncapped", "A")
	b := cl.handle(t, "uuid-lua-watchdog-uncapped", "B")
	n := renewals(t, a)
	acquireWatched(t, a)
	every := testTTL / 3
	rounds := 3 * lockimpl.DefaultMaxRenewals
	for i := 1; i <= rounds; i++ {
		m.FastForward(every)
		a.clock.Advance(every)
		a.clock.WaitSleeping(t, 1)
		if got := n.Load(); got != int64(i) {
			t.Fatalf("renewals = %d, want %d", got, i)
		}
		if ok, err := b.TryAcquire(context.Background()); ok || err != nil {
			t.Fatalf("round %d: B's acquire = %v, %v; want refused while A's watchdog renews", i, ok, err)
		}
	}
	if got := m.TTL(testKey); got != testTTL {
		t.Fatalf("TTL after %d renewals = %v, want %v", rounds, got, testTTL)
	}
	mustRelease(t, a)
	mustAcquire(t, b)
	mustRelease(t, b)
}

func TestWatchdogLostWhenKeyTaken(t *testing.T) {
	// A renewal that finds someone else's token stops the watchdog and closes
	// Lost, and must not extend the other client's lease.
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			n := renewals(t, a)
			acquireWatched(t, a)
			lost := lostOf(t, a)
			if isClosed(lost) {
				t.Fatal("Lost closed right after acquire")
			}

			plantOther(t, name, m, "B#1") // A's lease ran out and B took the lock
			a.clock.Advance(testTTL / 3)
			select {
			case <-lost:
			case <-time.After(hangGuard):
				t.Fatal("Lost not closed after the renewal found B's token")
			}
			a.gos.WaitExited(t, 0)
			if got := n.Load(); got != 1 {
				t.Errorf("renewal attempts = %d, want 1 then stop", got)
			}
			if got := a.clock.Sleeping(); got != 0 {
				t.Errorf("%d sleepers after loss, want the watchdog gone", got)
			}
			if got := holderOf(t, m); got != "B#1" {
				t.Errorf("holder = %q, want B#1", got)
			}
			if got := m.TTL(testKey); got != 20*time.Second {
				t.Errorf("B's TTL = %v, want 20s: A's watchdog must not renew B's lock", got)
			}
			if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
				t.Errorf("Release after loss = %v, want ErrNotHeld", err)
			}
			if got := holderOf(t, m); got != "B#1" {
				t.Errorf("holder after A's release = %q, want B#1", got)
			}
		})
	}
}

func TestWatchdogReleaseStopsIt(t *testing.T) {
	// Release stops the watchdog and waits for it: no goroutine is left
	// behind to renew a lock that is no longer held.
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			n := renewals(t, a)
			acquireWatched(t, a)
			m.FastForward(testTTL / 3)
			a.clock.Advance(testTTL / 3)
			a.clock.WaitSleeping(t, 1) // one renewal, then asleep again

			mustRelease(t, a)
			// Release waited: the watchdog's Sleep has already returned.
			if got := a.clock.Sleeping(); got != 0 {
				t.Fatalf("%d sleepers after Release returned, want 0", got)
			}
			a.gos.WaitExited(t, 0)
			if m.Exists(testKey) {
				t.Fatalf("key still held by %q after Release", holderOf(t, m))
			}
			sleeps := len(a.clock.Slept())
			a.clock.Advance(time.Hour)
			if got := n.Load(); got != 1 {
				t.Errorf("renewals = %d after Release, want 1 (from before)", got)
			}
			if got := len(a.clock.Slept()); got != sleeps {
				t.Errorf("Sleep called %d more times after Release", got-sleeps)
			}
			if isClosed(lostOf(t, a)) {
				t.Error("Lost closed by a plain Release")
			}
		})
	}
}

func TestWatchdogReleaseWaitsForIt(t *testing.T) {
	// Release must wait for the watchdog goroutine to finish before it
	// deletes the lock; otherwise a renewal still in flight could run after
	// the release, and goroutines pile up. The fake clock holds the cancelled
	// watchdog inside Sleep: a Release that does not wait would send its
	// compare-and-delete while the watchdog is held; one that waits blocks.
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			acquireWatched(t, a)
			held, open := a.clock.HoldCancelled()
			var opened, early atomic.Bool
			a.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
				if scriptName(cmd) == "release" && !opened.Load() {
					early.Store(true)
					open()
				}
				return nil
			}})

			done := make(chan error, 1)
			go releaseInBackground(t.Context(), a, done)
			select {
			case <-held:
			case <-time.After(hangGuard):
				t.Fatal("Release did not cancel the watchdog")
			}
			// Either Release sends its script while the watchdog is held (a
			// failure), or it blocks on a channel waiting for the watchdog.
			guard := time.After(hangGuard)
			for !early.Load() && !blockedOnChannel("releaseInBackground") {
				select {
				case <-guard:
					t.Fatal("Release neither blocked nor sent its script")
				default:
					runtime.Gosched()
				}
			}
			if early.Load() {
				t.Fatal("Release sent compare-and-delete while the watchdog was still running")
			}
			opened.Store(true)
			open()
			if err := <-done; err != nil {
				t.Fatalf("Release: %v", err)
			}
			if got := a.clock.Sleeping(); got != 0 {
				t.Errorf("%d sleepers after Release returned, want 0", got)
			}
			a.gos.WaitExited(t, 0)
			if m.Exists(testKey) {
				t.Error("key still there after Release")
			}
		})
	}
}

// releaseInBackground is a named function so that blockedOnChannel can find
// its goroutine.
func releaseInBackground(ctx context.Context, l lockimpl.Lock, done chan<- error) {
	done <- l.Release(ctx)
}

// blockedOnChannel reports whether a goroutine running fn is parked on a
// channel receive outside go-redis: Release waiting for its watchdog.
func blockedOnChannel(fn string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[chan receive") &&
			strings.Contains(g, "lockimpl_test."+fn) && !strings.Contains(g, "go-redis") {
			return true
		}
	}
	return false
}

func TestWatchdogOutlivesAcquireContext(t *testing.T) {
	// The watchdog outlives the TryAcquire call: cancelling the context that
	// call was given (a request timeout, say) must not stop renewals while
	// the lock is still held.
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			n := renewals(t, a)
			ctx, cancel := context.WithCancel(t.Context())
			ok, err := a.TryAcquire(ctx)
			if err != nil || !ok {
				t.Fatalf("TryAcquire = %v, %v", ok, err)
			}
			a.clock.WaitSleeping(t, 1)
			cancel()

			m.FastForward(testTTL / 3)
			a.clock.Advance(testTTL / 3)
			a.clock.WaitSleeping(t, 1)
			if got := n.Load(); got != 1 {
				t.Fatalf("renewals = %d, want 1", got)
			}
			if got := m.TTL(testKey); got != testTTL {
				t.Fatalf("TTL = %v, want %v", got, testTTL)
			}
			mustRelease(t, a)
			a.gos.WaitExited(t, 0)
		})
	}
}

func TestWatchdogClosedClientStops(t *testing.T) {
	// A closed client can never renew again: the watchdog exits instead of
	// ticking forever. (It cannot know whether the lock is gone, so Lost
	// stays open.)
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			a := cl.handle(t, name, "A")
			acquireWatched(t, a)
			if err := a.env.Nodes[0].Close(); err != nil {
				t.Fatal(err)
			}
			a.clock.Advance(testTTL / 3)
			a.gos.WaitExited(t, 0)
			if got := a.clock.Sleeping(); got != 0 {
				t.Errorf("%d sleepers, want the watchdog gone", got)
			}
			if isClosed(lostOf(t, a)) {
				t.Error("Lost closed though no renewal saw the lock gone")
			}
			if err := a.Release(t.Context()); !errors.Is(err, redis.ErrClosed) {
				t.Errorf("Release on a closed client = %v, want redis.ErrClosed", err)
			}
		})
	}
}

func TestLostBeforeAcquire(t *testing.T) {
	// Before the first acquire there is no watchdog; Lost must be a valid
	// channel that never closes (not nil-panicking, not closed).
	for _, name := range watchdogNames {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			a := cl.handle(t, name, "A")
			if ch := lostOf(t, a); ch == nil || isClosed(ch) {
				t.Fatalf("Lost before acquire = %v (closed: %v), want open channel", ch, ch != nil && isClosed(ch))
			}
			b := cl.handle(t, name, "B")
			mustAcquire(t, b)
			mustNotAcquire(t, a) // a failed attempt starts no watchdog
			if got := a.gos.Started(); len(got) != 0 {
				t.Errorf("failed attempt started goroutines %v", got)
			}
			mustRelease(t, b)
		})
	}
}
