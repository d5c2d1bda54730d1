package lockimpl_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

var _ lockimpl.Watcher = (*lockimpl.Redisson)(nil)

// Redisson's rule: lock() with no lease renews every TTL/3; lock(leaseTime)
// takes the lock for that lease and starts no watchdog.
func TestRedissonLeaseTurnsTheWatchdogOff(t *testing.T) {
	for _, lease := range []time.Duration{0, 10 * time.Second} {
		cl := newCluster(t, 1)
		m := cl.servers[0]
		a := cl.handle(t, "redisson", "A")
		a.env.Lease = lease
		if lease > 0 {
			a.env.TTL = lease
		}
		a.Lock = lockimpl.NewRedisson(a.env)
		mustAcquire(t, a)
		if lease > 0 {
			if got := a.gos.Started(); len(got) != 0 {
				t.Errorf("lease %v: goroutines started = %v, want none: no watchdog", lease, got)
			}
			if got := m.TTL(testKey); got != lease {
				t.Errorf("lease %v: TTL = %v, want the lease", lease, got)
			}
			mustRelease(t, a)
			continue
		}
		a.clock.WaitSleeping(t, 1)
		var n atomic.Int64
		a.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
			if scriptName(cmd) == "reentrant-renew" {
				n.Add(1)
			}
			return nil
		}})
		m.FastForward(testTTL / 3)
		a.clock.Advance(testTTL / 3)
		a.clock.WaitSleeping(t, 1)
		if n.Load() != 1 || m.TTL(testKey) != testTTL {
			t.Errorf("no lease: %d renewals, TTL %v after TTL/3; want 1, %v", n.Load(), m.TTL(testKey), testTTL)
		}
		mustAcquire(t, a) // reentrant: a second hold, no second watchdog
		if got := a.gos.Started(); len(got) != 1 {
			t.Errorf("goroutines after a nested acquire = %v, want one watchdog", got)
		}
		mustRelease(t, a)
		mustRelease(t, a)
		if m.Exists(testKey) {
			t.Error("key still there after the last release")
		}
	}
}
