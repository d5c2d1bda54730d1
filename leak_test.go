package main

import (
	"os"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and
// runs them with the collector's target of the explore command (testgc). With
// LOCKSTEP_TEST_MAIN=1 the test binary is lockstep itself, signals and all:
// tests run it as a process of its own (lockstepProcess).
func TestMain(m *testing.M) {
	if os.Getenv("LOCKSTEP_TEST_MAIN") == "1" {
		os.Exit(realMain(os.Args[1:]))
	}
	testgc.Set()
	leaktest.VerifyTestMain(m)
}
