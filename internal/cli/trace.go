package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
)

// maxTraceSize bounds a trace file. The largest trace lockstep writes
// within a lesson's bounds (docs/lessons.md) is about 666 MB: the widest
// world, eight clients on nine servers, its four pairs of clients on four
// keys of 128 characters each (the widest lesson, one key, writes 199 MB).
// Read an event at a time (decodeTrace), a trace of 1 GiB loads in about
// 2 GB; a larger file is not one of lockstep's traces.
const maxTraceSize = 1 << 30

// loadTrace reads a trace written by play --format json or explore --out:
// a regular file no larger than maxTraceSize, which is known before a byte
// of it is read (openFile).
func loadTrace(ctx context.Context, path string) (*trace.Trace, error) {
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
func readTrace(ctx context.Context, r io.Reader, name string) (*trace.Trace, error) {
	return readTraceUpTo(ctx, r, name, maxTraceSize)
}

// readTraceUpTo is readTrace with a limit of its own (the tests' smaller
// one).
func readTraceUpTo(ctx context.Context, r io.Reader, name string, limit int64) (*trace.Trace, error) {
	in := &countReader{r: io.LimitReader(r, limit+1)}
	tr, err := decodeTrace(in)
	if err != nil {
		// A file cut at the limit does not decode: say it was too large.
		_, _ = io.Copy(io.Discard, in)
	}
	if in.n > limit {
		return nil, errUsage{fmt.Errorf("%s: larger than %s, the most a trace file may be", name, mib(limit))}
	}
	if in.err != nil {
		return nil, errUsage{fmt.Errorf("read %s: %w", name, in.err)}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err != nil {
		return nil, errUsage{fmt.Errorf("%s: not a lockstep trace: %w", name, err)}
	}
	// Cleaned first, so that the errors below quote no escape sequence.
	tr.Clean()
	if err := tr.Validate(invariant.IDs()); err != nil {
		return nil, errUsage{fmt.Errorf("%s: %w", name, err)}
	}
	if tr.Schedule == nil {
		return tr, nil
	}
	if err := explore.ValidateSchedule(tr.Schedule); err != nil {
		return nil, errUsage{fmt.Errorf("%s: %w", name, err)}
	}
	impl, err := lockimpl.Lookup(tr.Impl)
	if tr.External {
		// A lock of the user's own (locktest): its code is not here to
		// make the schedule again; the trace is shown as recorded.
		return tr, nil
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

// countReader counts the bytes read through it and keeps the first error
// other than io.EOF.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}
