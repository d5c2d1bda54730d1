package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// maxTraceSize bounds a trace file. The largest trace lockstep writes is
// about 300 KB; a file two hundred times that is not one of its traces.
const maxTraceSize = 64 << 20

// loadTrace reads a trace written by play --format json or explore --out:
// a regular file no larger than maxTraceSize, which is known before a byte
// of it is read (openFile).
func loadTrace(ctx context.Context, path string) (*sim.Trace, error) {
	f, err := openFile(path, "trace", maxTraceSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTrace(ctx, f, path)
}

// readTrace reads the trace file name from r, up to maxTraceSize. Its
// strings are cleaned of control characters and the whole trace is
// validated before anything renders it. A trace with a schedule is made
// again against its implementation and must end the same way: the file is a
// claim, the replay checks it.
func readTrace(ctx context.Context, r io.Reader, name string) (*sim.Trace, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTraceSize+1))
	if err != nil {
		return nil, errUsage{fmt.Errorf("read %s: %w", name, err)}
	}
	if len(b) > maxTraceSize {
		return nil, errUsage{fmt.Errorf("%s: larger than %s, the most a trace file may be", name, mib(maxTraceSize))}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var tr sim.Trace
	if err := json.Unmarshal(b, &tr); err != nil {
		return nil, errUsage{fmt.Errorf("%s: not a lockstep trace: %w", name, err)}
	}
	// Cleaned first, so that the errors below quote no escape sequence.
	tr.Clean()
	if err := tr.Validate(); err != nil {
		return nil, errUsage{fmt.Errorf("%s: %w", name, err)}
	}
	if tr.Schedule == nil {
		return &tr, nil
	}
	if err := explore.ValidateSchedule(tr.Schedule); err != nil {
		return nil, errUsage{fmt.Errorf("%s: %w", name, err)}
	}
	impl, err := lockimpl.Lookup(tr.Impl)
	if tr.External {
		// A lock of the user's own (locktest): its code is not here to
		// make the schedule again; the trace is shown as recorded.
		return &tr, nil
	}
	if err != nil {
		return nil, errUsage{fmt.Errorf("%s: impl: %w", name, err)}
	}
	again, err := explore.Replay(ctx, impl, tr.Schedule)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	}
	if err != nil {
		return nil, errUsage{fmt.Errorf("%s does not replay: %w", name, err)}
	}
	if !slices.Equal(again.Broken(), tr.Broken()) || len(again.Events) != len(tr.Events) {
		return nil, errUsage{errors.New(name + " does not replay: the schedule now ends differently (" +
			strings.Join(again.Broken(), ",") + " broken, " + fmt.Sprint(len(again.Events)) + " events)")}
	}
	again.Title = tr.Title
	return again, nil
}
