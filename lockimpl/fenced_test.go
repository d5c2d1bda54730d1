package lockimpl_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

func TestFenceKey(t *testing.T) {
	// The counter's key carries the lock key as its hash tag, so both land in
	// the same Cluster slot and one script may touch both.
	if got, want := lockimpl.FenceKey("lock:product:1001"), "{lock:product:1001}:fence"; got != want {
		t.Fatalf("FenceKey = %q, want %q", got, want)
	}
}

func fenceOf(t *testing.T, h *handle) int64 {
	t.Helper()
	f, ok := h.Lock.(lockimpl.Fencer)
	if !ok {
		t.Fatalf("%T does not implement Fencer", h.Lock)
	}
	return f.Fence()
}

func TestFencedFenceStrictlyIncreases(t *testing.T) {
	// Every successful acquire mints a larger fencing token (栅栏令牌), whoever
	// takes the lock, so the resource can refuse a write from an older hold.
	// A failed attempt mints nothing; the counter lives under FenceKey(key).
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "fenced", "A")
	b := cl.handle(t, "fenced", "B")
	if got := fenceOf(t, a); got != 0 {
		t.Fatalf("Fence before any acquire = %d, want 0", got)
	}

	var last int64
	step := func(holder, other *handle) {
		t.Helper()
		mustAcquire(t, holder)
		holder.clock.WaitSleeping(t, 1)
		fence := fenceOf(t, holder)
		if fence <= last {
			t.Fatalf("Fence = %d after a fence of %d: not strictly increasing", fence, last)
		}
		last = fence
		mustNotAcquire(t, other)
		if got := fenceOf(t, other); got != 0 {
			t.Errorf("loser's Fence = %d, want 0", got)
		}
		counter, err := m.Get(lockimpl.FenceKey(testKey))
		if err != nil {
			t.Fatalf("fence counter under %s: %v", lockimpl.FenceKey(testKey), err)
		}
		if want := strconv.FormatInt(fence, 10); counter != want {
			t.Errorf("counter = %s, want %s: a failed attempt must not mint a token", counter, want)
		}
		mustRelease(t, holder)
		if got := fenceOf(t, holder); got != 0 {
			t.Errorf("Fence after Release = %d, want 0", got)
		}
	}
	step(a, b)
	step(b, a)
	step(a, b)
	step(a, b)
	if last != 4 {
		t.Errorf("last fence = %d after 4 holds, want 4", last)
	}
	if ttl := m.TTL(lockimpl.FenceKey(testKey)); ttl != 0 {
		t.Errorf("fence counter TTL = %v, want none: tokens must not restart", ttl)
	}
}

func TestFencedTokenOutlivesExpiry(t *testing.T) {
	// The counter does not expire with the lock: after A's lease runs out and
	// B takes the lock, B's token is larger than A's, so A's late write (a GC
	// pause past the lease) is the one the resource refuses.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "fenced", "A")
	b := cl.handle(t, "fenced", "B")
	mustAcquire(t, a)
	a.clock.WaitSleeping(t, 1)
	fa := fenceOf(t, a)

	m.FastForward(testTTL) // A is paused: no renewal, the lease runs out
	mustAcquire(t, b)
	b.clock.WaitSleeping(t, 1)
	if fb := fenceOf(t, b); fb <= fa {
		t.Fatalf("B's fence %d not above paused A's %d", fb, fa)
	}
	if got := fenceOf(t, a); got != fa {
		t.Errorf("A's Fence changed to %d while it was paused", got)
	}
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Errorf("paused A's Release = %v, want ErrNotHeld", err)
	}
	if got := holderOf(t, m); got != "B#1" {
		t.Errorf("holder after A's Release = %q, want B#1", got)
	}
	mustRelease(t, b)
}
