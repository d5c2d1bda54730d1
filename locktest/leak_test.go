package locktest

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and
// runs them with the collector's target of the explore command (testgc).
func TestMain(m *testing.M) {
	testgc.Set()
	leaktest.VerifyTestMain(m,
		// A Release blocked for good on a channel of its own: every lesson
		// says so (TestReleaseThatNeverReturns), and nothing can end a
		// goroutine that waits for nothing.
		goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/locktest.stuckRelease.Release"),
		// internal/stall's, in the search too (TestSearchOfABlockedRelease).
		goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/internal/stall.(*lock).Release"))
}
