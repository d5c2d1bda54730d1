package tui

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// teatest.NewTestModel starts a goroutine that waits for SIGINT to
		// kill the program and has no way to stop it: one per TestModel,
		// teatest's own, alive until the test binary exits.
		goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"),
	)
}
