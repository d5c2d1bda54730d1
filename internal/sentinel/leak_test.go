package sentinel

import (
	"testing"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
)

// TestMain fails the package's tests if a goroutine outlives them.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}
