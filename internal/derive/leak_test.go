package derive

import (
	"testing"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and
// runs them with the collector's target of the explore command (testgc).
func TestMain(m *testing.M) {
	testgc.Set()
	leaktest.VerifyTestMain(m)
}
