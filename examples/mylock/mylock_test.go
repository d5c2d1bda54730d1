package mylock_test

import (
	"os"
	"testing"

	"example.com/mylock"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/locktest"
)

// unrenewed are what a lease that nobody renews cannot do: work longer
// than the lease lets a second client in, and the first one's late write
// loses the second one's update. The watched lock does them.
var unrenewed = []locktest.Option{
	locktest.Allow("del-other", "mutex", "resource"),
	locktest.Allow("lease-too-short", "mutex", "resource"),
	// A caller's own lease (Redisson's lock(leaseTime)) is not renewed.
	locktest.Allow("redisson-lease", "mutex", "resource"),
	// A holder whose call hangs loses its lease while it still works.
	locktest.Allow("hung-holder", "mutex", "resource"),
	// A server's clock set back: a crashed holder's unrenewed key lives
	// past the lease, and the waiter waits past the bound.
	locktest.Allow("clock-back", "liveness"),
}

// weaknesses are what a lease lock with a checked release still cannot do,
// renewed or not, lesson by lesson: accepted, so that the tests fail only
// on anything else.
var weaknesses = []locktest.Option{
	// A pause longer than the lease, or a holder cut off from Redis: nothing
	// but a fencing token at the resource would catch it.
	locktest.Allow("gc-pause", "mutex", "resource"),
	// A check before the write catches a pause before it, not one after.
	locktest.Allow("check-then-write", "mutex", "resource"),
	// The same pause over an idempotent job: two holders, nothing lost.
	locktest.Allow("idempotent-section", "mutex"),
	locktest.Allow("renew-other", "mutex", "resource"),
	locktest.Allow("partition", "mutex", "resource"),
	locktest.Allow("redlock-acquire-pause", "mutex", "resource"),
	locktest.Allow("redlock-fence", "mutex", "resource"),
	// The same lock failures where the database guards the data: only mutex.
	locktest.Allow("guard-version", "mutex"),
	locktest.Allow("guard-token", "mutex"),
	// One server: a failover, a restart without persistence or a clock jump
	// loses the lock.
	locktest.Allow("failover", "mutex", "resource"),
	locktest.Allow("failover-release", "mutex", "resource"),
	locktest.Allow("failover-wait", "mutex", "resource"),
	locktest.Allow("redlock-restart", "mutex", "resource"),
	locktest.Allow("redlock-shared-host", "mutex", "resource"),
	locktest.Allow("redlock-clock-jump", "mutex", "resource"),
	locktest.Allow("guard-unique", "mutex"),
	// Not reentrant: a nested acquire waits for itself.
	locktest.Allow("reentrant-call", "liveness"),
}

// TestMyLock runs the lock through every lockstep lesson and a bounded
// search of the clients' schedules. The lock has a lease and checks its
// token on release, so it never deletes another holder's lock.
func TestMyLock(t *testing.T) {
	locktest.Run(t, lockimpl.Info{Name: "mylock", Nodes: 1, New: mylock.New}, append(unrenewed, weaknesses...)...)
}

// TestMyWatchedLock runs the lock with its watchdog, a goroutine on a
// time.Ticker: the lease no longer runs out under work longer than it, so
// del-other and lease-too-short are no longer its weaknesses. Renewed
// without a cap, a lease outlives a hung call: nobody else gets in, and
// the waiter waits past hung-holder's bound — liveness, nothing else.
func TestMyWatchedLock(t *testing.T) {
	locktest.Run(t, lockimpl.Info{Name: "mylock-watched", Nodes: 1, New: mylock.NewWatched},
		append(weaknesses, locktest.Allow("hung-holder", "liveness"))...)
}

// TestPlainDEL is the same lock with the classic bug, a release that
// deletes without checking the token. It fails — which is the point — so
// it runs only when asked: MYLOCK_PLAIN_DEL=1 go test -run TestPlainDEL.
// With the same accepted weaknesses, what is left is the bug.
func TestPlainDEL(t *testing.T) {
	if os.Getenv("MYLOCK_PLAIN_DEL") != "1" {
		t.Skip("set MYLOCK_PLAIN_DEL=1 to see locktest catch a release with a plain DEL")
	}
	locktest.Run(t, lockimpl.Info{Name: "mylock-plain-del", Nodes: 1, New: mylock.NewPlainDEL}, append(unrenewed, weaknesses...)...)
}
