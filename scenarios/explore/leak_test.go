package explore

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and runs
// them with the collector the explore command uses (GCPercent).
func TestMain(m *testing.M) {
	testgc.Set()
	leaktest.VerifyTestMain(m,
		// A Release blocked for good on a channel nobody closes: the
		// search says so (TestSearchOfABlockedReleaseIsAnError), and
		// nothing can end a goroutine that waits for nothing.
		goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/internal/stall.(*lock).Release"))
}

// The tests collect as the explore command does.
func TestCollectorAsTheCommand(t *testing.T) {
	if testgc.Percent != GCPercent {
		t.Errorf("testgc.Percent is %d, GCPercent %d", testgc.Percent, GCPercent)
	}
}
