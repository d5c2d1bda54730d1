package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/web"
)

// htmlPage writes play --format html's page for a run of s: the run, and
// beside it the run of the lesson's fix, so that the page's compare mode
// (c) has the implementation the TUI's would set beside it. The fix runs
// on embedded servers only: on real ones a run takes real time, and the
// page holds the one run asked for. A fix that does not run is left out.
func htmlPage(ctx context.Context, w, stderr io.Writer, s scenarios.Scenario, tr *trace.Trace, target *backend.Target, lang string) error {
	traces := []*trace.Trace{tr}
	if fix := s.Fix(tr.Impl); target == nil && fix != "" && fix != tr.Impl {
		if impl, err := lockimpl.Lookup(fix); err == nil {
			if other, err := s.RunOn(ctx, impl, nil); err == nil {
				traces = append(traces, other)
			}
		}
	}
	return writePage(w, stderr, traces, lang)
}

// writePage writes a player page of the traces, the first one open. When
// they pass a page's budget (web.MaxPageJSON) together, the page holds the
// first alone, and stderr says so; when the first alone does, nothing is
// written and the error says what writes a run of any length.
func writePage(w, stderr io.Writer, traces []*trace.Trace, lang string) error {
	err := web.Player{Traces: traces, Lang: lang}.Write(w)
	var big *web.TooLargeError
	if errors.As(err, &big) && len(traces) > 1 {
		fmt.Fprintf(stderr, "lockstep: the page holds %s alone: with %s beside it, it would pass the %d MiB a page holds (compare mode needs both)\n",
			traces[0].Impl, traces[1].Impl, web.MaxPageJSON>>20)
		err = web.Player{Traces: traces[:1], Lang: lang}.Write(w)
	}
	if errors.As(err, &big) {
		return errUsage{fmt.Errorf("%w: play --format text, md or json writes a run of any length", err)}
	}
	return err
}
