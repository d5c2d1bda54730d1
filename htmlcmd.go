package main

import (
	"context"
	"io"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/web"
)

// htmlPage writes play --format html's page for a run of s: the run, and
// beside it the run of the lesson's fix, so that the page's compare mode
// (c) has the implementation the TUI's would set beside it. The fix runs
// on embedded servers only: on real ones a run takes real time, and the
// page holds the one run asked for. A fix that does not run is left out.
func htmlPage(ctx context.Context, w io.Writer, s scenarios.Scenario, tr *sim.Trace, target *sim.Target, lang string) error {
	traces := []*sim.Trace{tr}
	if fix := s.Fix(tr.Impl); target == nil && fix != "" && fix != tr.Impl {
		if impl, err := lockimpl.Lookup(fix); err == nil {
			if other, err := s.RunOn(ctx, impl, nil); err == nil {
				traces = append(traces, other)
			}
		}
	}
	return web.Player{Traces: traces, Lang: lang}.Write(w)
}
