package tui

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
		// teatest.NewTestModel starts a goroutine that waits for SIGINT to
		// kill the program and has no way to stop it: one per TestModel,
		// teatest's own, alive until the test binary exits.
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"),
	)
}
