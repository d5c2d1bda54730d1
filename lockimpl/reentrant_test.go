package lockimpl_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

func TestReentrantCountsHolds(t *testing.T) {
	// A reentrant lock (可重入锁) lets its owner take it again without blocking
	// itself; each Release counts one hold down and only the last one deletes
	// the key. Another owner stays out the whole time.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "reentrant", "A")
	b := cl.handle(t, "reentrant", "B")

	const depth = 3
	for i := 1; i <= depth; i++ {
		mustAcquire(t, a)
		if got, want := m.HGet(testKey, "A#1"), strconv.Itoa(i); got != want {
			t.Fatalf("hold count after %d acquires = %q, want %s", i, got, want)
		}
		mustNotAcquire(t, b)
	}
	for i := depth - 1; i >= 1; i-- {
		mustRelease(t, a)
		if got, want := m.HGet(testKey, "A#1"), strconv.Itoa(i); got != want {
			t.Fatalf("hold count = %q, want %s", got, want)
		}
		mustNotAcquire(t, b)
	}
	mustRelease(t, a)
	if m.Exists(testKey) {
		t.Fatal("key still there after the last release")
	}
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Errorf("one Release too many = %v, want ErrNotHeld", err)
	}
	if a.tokens.Drawn() != 1 { // A#1 for the holds; a release with nothing held draws none
		t.Errorf("A drew %d tokens, want 1", a.tokens.Drawn())
	}
	mustAcquire(t, b)
	mustRelease(t, b)
}

func TestReentrantRefreshesLease(t *testing.T) {
	// Re-entering and partially releasing both put the lease back to the full
	// TTL (PEXPIRE in the scripts), so nested work does not run on an
	// almost-expired lock.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "reentrant", "A")

	mustAcquire(t, a)
	m.FastForward(10 * time.Second)
	mustAcquire(t, a)
	if got := m.TTL(testKey); got != testTTL {
		t.Errorf("TTL after re-entering = %v, want %v", got, testTTL)
	}
	m.FastForward(10 * time.Second)
	mustRelease(t, a)
	if got := m.TTL(testKey); got != testTTL {
		t.Errorf("TTL after releasing one of two holds = %v, want %v", got, testTTL)
	}
	mustRelease(t, a)
	if m.Exists(testKey) {
		t.Error("key still there after both holds were released")
	}
}
