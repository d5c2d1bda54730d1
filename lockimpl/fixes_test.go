package lockimpl_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// A holder that tries to take its Redlock again is refused, and the refusal
// must not undo its own hold: the nodes that answered nil already had a key,
// and only keys this attempt may have set are cleaned up.
func TestRedlockSecondAttemptKeepsTheHold(t *testing.T) {
	cl := newCluster(t, lockimpl.RedlockNodes)
	a := cl.handle(t, "redlock", "A")
	mustAcquire(t, a)
	mustNotAcquire(t, a)
	for i, m := range cl.servers {
		if got := holderOf(t, m); got != "A#1" {
			t.Errorf("node %d: holder %q after A's second attempt, want A#1", i, got)
		}
	}
	mustRelease(t, a)
}

// With every node unreachable, "someone else holds it" would be a lie:
// TryAcquire says what went wrong.
func TestRedlockAllNodesDownIsAnError(t *testing.T) {
	cl := newCluster(t, lockimpl.RedlockNodes)
	cl.failFast = true
	a := cl.handle(t, "redlock", "A")
	for _, m := range cl.servers {
		m.Close()
	}
	ok, err := a.TryAcquire(t.Context())
	if ok || err == nil {
		t.Fatalf("TryAcquire with every node down = %v, %v; want false and an error", ok, err)
	}
}

// A release that fails on the network keeps the token, so a retry still
// finds the lock ours and deletes it.
func TestFailedReleaseCanBeRetried(t *testing.T) {
	for _, name := range []string{"uuid-get-del", "uuid-lua", "uuid-lua-watchdog", "fenced", "reentrant", "reentrant-local", "redlock"} {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")
			mustAcquire(t, a)
			down := true
			for _, c := range a.env.Nodes {
				c.AddHook(cmdHook{before: func(redis.Cmder) error {
					if down {
						return errors.New("network down")
					}
					return nil
				}})
			}
			if err := a.Release(t.Context()); err == nil || errors.Is(err, lockimpl.ErrNotHeld) {
				t.Fatalf("Release with the network down = %v, want the network error", err)
			}
			down = false
			mustRelease(t, a)
			for i, m := range cl.servers {
				if m.Exists(testKey) {
					t.Errorf("node %d: lock left after the retried release", i)
				}
			}
			if n := a.tokens.Drawn(); n != 1 {
				t.Errorf("drew %d tokens, want 1", n)
			}
		})
	}
}

// Reentrant: when the lease ran out under two holds and the owner takes the
// lock again, its count follows Redis (one hold), so one release frees it.
func TestReentrantCountFollowsRedis(t *testing.T) {
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "reentrant", "A")
	mustAcquire(t, a)
	mustAcquire(t, a)
	m.FastForward(testTTL) // the lease is lost with two holds
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("release of a lost lock = %v, want ErrNotHeld", err)
	}
	mustAcquire(t, a)
	mustRelease(t, a)
	if m.Exists(testKey) {
		t.Error("key left: the local count drifted from Redis")
	}
}

// A watchdog lock that lost its lease and takes the lock again must not leave
// the first watchdog running.
func TestWatchdogReacquireStopsTheOldOne(t *testing.T) {
	for _, name := range []string{"uuid-lua-watchdog", "fenced"} {
		t.Run(name, func(t *testing.T) {
			cl := newCluster(t, 1)
			a := cl.handle(t, name, "A")
			mustAcquire(t, a)
			a.clock.WaitSleeping(t, 1)
			cl.servers[0].FastForward(testTTL) // the key is gone; the watchdog has not noticed yet
			mustAcquire(t, a)
			a.gos.WaitExited(t, 0)
			mustRelease(t, a)
			a.gos.WaitExited(t, 1)
		})
	}
}
