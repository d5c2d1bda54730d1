package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
)

// A client's explicit lease (Program.Lease) is its lock's TTL, and the lock
// learns it was explicit (Env.Lease): uuid-lua loses a 10s lease under 25s
// of work; uuid-lua-watchdog renews it; redisson, which follows Redisson's
// rule, does not.
func TestClientLease(t *testing.T) {
	script := func(lease time.Duration) Script {
		return func(tl *Timeline) {
			tl.Client("A", model.Program{Work: 25 * time.Second, Lease: lease})
			tl.Client("B", model.Program{Start: time.Second, Retry: 5 * time.Second, Work: 3 * time.Second})
			tl.RunToEnd()
		}
	}
	for _, tc := range []struct {
		impl  string
		lease time.Duration
		mutex bool
	}{
		{"uuid-lua", 0, false},
		{"uuid-lua", 10 * time.Second, true},
		{"uuid-lua-watchdog", 10 * time.Second, false},
		{"redisson", 0, false},
		{"redisson", 10 * time.Second, true},
	} {
		tr := run(t, model.Setup{}, tc.impl, script(tc.lease))
		if got := slices.Contains(brokenInvariants(tr), invariant.Mutex); got != tc.mutex {
			t.Errorf("%s with a lease of %v: mutex broken = %v, want %v", tc.impl, tc.lease, got, tc.mutex)
		}
		if k, ok := key(tr.Events[2].Snap, "redis-1", "lock:product:1001"); tc.lease > 0 && (!ok || k.TTL != tc.lease) {
			t.Errorf("%s: A's lock after its acquire: %+v, want a TTL of %v", tc.impl, k, tc.lease)
		}
	}
}
