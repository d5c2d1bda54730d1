package cli

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/stall"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Issue #38, item 4: a search whose lock blocks in a call for good could
// not run, as a lesson's run of it could not: exit 2, stderr naming the
// call and the schedule that led there, never "complete, nothing broken".
func TestExploreBlockedCallIsExit2(t *testing.T) {
	defer func(f func(string) (lockimpl.Info, error)) { exploreLookup = f }(exploreLookup)
	exploreLookup = func(name string) (lockimpl.Info, error) {
		if name == stall.Stuck().Name {
			return stall.Stuck(), nil
		}
		return lockimpl.Lookup(name)
	}
	code, stdout, stderr := runCLI(t, "explore", "--impl", "stall-release", "--depth", "12")
	if code != exitUsage || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
	}
	for _, want := range []string{"lockstep: the search stopped after the moves A, ", "A's Release is blocked in the lock implementation stall-release", "nothing in the run can wake it"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
