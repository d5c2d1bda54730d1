package explore

import (
	"os"
	"runtime/debug"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them, and runs
// them with the collector the explore command uses (GCPercent).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	goleak.VerifyTestMain(m)
}
