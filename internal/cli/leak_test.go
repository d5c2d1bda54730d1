package cli

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"go.uber.org/goleak"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/internal/testgc"
)

// TestMain fails the package's tests if a goroutine outlives them, and
// runs them with the collector's target of the explore command (testgc). With
// LOCKSTEP_TEST_MAIN=1 the test binary is lockstep itself, signals and all:
// tests run it as a process of its own (lockstepProcess). Either way the
// self-check page is the repository's, which package main embeds.
func TestMain(m *testing.M) {
	selfCheck, err := os.ReadFile(repoPath("docs/self-check.md"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	SelfCheck = string(selfCheck)
	if os.Getenv("LOCKSTEP_TEST_MAIN") == "1" {
		code := Main(os.Args[1:])
		if os.Getenv("LOCKSTEP_TEST_ALLOC") == "1" {
			// What the command allocated, for TestStartWithoutLessons.
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Printf("alloc=%d\n", ms.TotalAlloc)
		}
		os.Exit(code)
	}
	testgc.Set()
	leaktest.VerifyTestMain(m,
		// A Release blocked for good on a channel nobody closes: explore
		// says so (TestExploreBlockedCallIsExit2), and nothing can end a
		// goroutine that waits for nothing.
		goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/internal/stall.(*lock).Release"))
}
