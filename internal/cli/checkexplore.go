package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
)

// agreeCells is how check --explore gets its cells: a variable, so that the
// package's tests share one run of the searches (see cache_test.go).
var agreeCells = scenarios.Agree

// cmdCheckExplore is check --explore: every lesson's search against every
// implementation, each cell set beside what the lesson breaks.
func cmdCheckExplore(ctx context.Context, f *checkFlags, lessons []scenarios.Scenario, impls []lockimpl.Info, stdout, stderr io.Writer) (int, error) {
	switch {
	case f.real.real() || f.real.replica != "":
		return 0, errUsage{fmt.Errorf("--explore searches on embedded servers only; leave out --redis, --cluster and --replica")}
	case f.junit != "":
		return 0, errUsage{fmt.Errorf("--explore has no JUnit report; leave out --junit")}
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(explore.GCPercent))
	}
	var progress func(done, total int)
	if isTerminal(stderr) {
		progress = func(done, total int) { fmt.Fprintf(stderr, "\r\033[Ksearch %d of %d", done, total) }
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	cells, err := agreeCells(ctx, lessons, impls, progress)
	if err != nil {
		return 0, err
	}
	if f.json {
		return exitOK, report.JSON(stdout, cells)
	}
	return exitOK, report.Agreement(stdout, cells, lessons, f.lang)
}
