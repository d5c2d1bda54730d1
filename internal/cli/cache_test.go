package cli

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The commands' tests run the same matrix many times (docs in two
// languages, check in four formats, the README's table): in this test
// binary each set of cells runs once. Formatting the same results twice
// must still give the same output, which TestDeterministic checks; that
// every cell runs the same way twice is package scenarios' test. A run
// under a cancelled context (an interruption) is not kept.
func init() {
	var cache sync.Map // cell set → func() ([]scenarios.Result, error)
	run := checkCells
	checkCells = func(ctx context.Context, scs []scenarios.Scenario, impls []lockimpl.Info) ([]scenarios.Result, error) {
		if ctx.Err() != nil {
			return run(ctx, scs, impls)
		}
		var key strings.Builder
		for _, s := range scs {
			// Lessons from files share ids with nothing built in, but one
			// id can name two versions of a file: the source tells them
			// apart.
			key.WriteString(s.ID + "\x00" + string(s.Source) + "\x00")
		}
		for _, in := range impls {
			key.WriteString(in.Name + "\x01")
		}
		f, _ := cache.LoadOrStore(key.String(), sync.OnceValues(func() ([]scenarios.Result, error) { return run(context.Background(), scs, impls) }))
		results, err := f.(func() ([]scenarios.Result, error))()
		return slices.Clone(results), err
	}
	// check's own cells are the same cells, without their traces.
	checkVerdicts = func(ctx context.Context, scs []scenarios.Scenario, impls []lockimpl.Info) ([]scenarios.Result, error) {
		results, err := checkCells(ctx, scs, impls)
		for i := range results {
			results[i].Trace = nil
		}
		return results, err
	}
}
