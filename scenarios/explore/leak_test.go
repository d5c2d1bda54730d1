package explore

import (
	"testing"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and runs
// them with the collector the explore command uses (GCPercent).
func TestMain(m *testing.M) {
	testgc.Set()
	leaktest.VerifyTestMain(m)
}

// The tests collect as the explore command does.
func TestCollectorAsTheCommand(t *testing.T) {
	if testgc.Percent != GCPercent {
		t.Errorf("testgc.Percent is %d, GCPercent %d", testgc.Percent, GCPercent)
	}
}
