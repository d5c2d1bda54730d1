package scenarios

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Expected returns the invariants expected to break when the built-in
// scenario runs against impl, in invariant order (none for an unknown
// scenario, or an implementation its lesson has no expectation for).
func Expected(scenario, impl string) []string {
	s, err := Lookup(scenario)
	if err != nil {
		return nil
	}
	exp, _ := s.Expected(impl)
	return exp
}

// Fix is the implementation to set beside impl in this failure mode: the
// first one after it in the catalogue that keeps every invariant here, else
// the one after it that breaks the fewest (fewer than impl does), else the
// first whose outcome differs, else simply the next one.
func Fix(scenario, impl string) string {
	s, _ := Lookup(scenario)
	return s.Fix(impl)
}

// Fix is the implementation to set beside impl in this lesson (see the
// package function Fix).
func (s Scenario) Fix(impl string) string {
	if s.FixImpl != "" && s.FixImpl != impl {
		return s.FixImpl
	}
	names := lockimpl.Names()
	i := slices.Index(names, impl)
	mine, _ := s.Expected(impl)
	fewest, best := len(mine), ""
	for _, n := range names[i+1:] {
		exp, _ := s.Expected(n)
		if len(exp) < fewest {
			fewest, best = len(exp), n
		}
	}
	if best != "" {
		return best
	}
	for d := 1; d < len(names); d++ {
		n := names[(i+d)%len(names)]
		if exp, _ := s.Expected(n); !slices.Equal(exp, mine) {
			return n
		}
	}
	return names[(i+1)%len(names)]
}

// Result is one cell of the matrix.
type Result struct {
	Scenario string   `json:"scenario"`
	Impl     string   `json:"impl"`
	Broken   []string `json:"broken"`
	Expected []string `json:"expected"`
	Pass     bool     `json:"pass"`
	// Skipped says why a cell was not run on real servers (no replica, too
	// few servers); such a cell counts as passed.
	Skipped string `json:"skipped,omitempty"`
	// Unjudged marks a cell whose lesson has no expectation for the
	// implementation: its verdicts are reported and it counts as passed.
	Unjudged bool `json:"unjudged,omitempty"`
	// Error says why the cell could not run (its implementation panicked,
	// a server refused the run): it has no verdict and does not pass.
	Error string `json:"error,omitempty"`
	// Drift and Margin, on real servers: how unevenly the run kept to its
	// clock (trace.Trace.Drift), and the real time of half a scenario second,
	// the narrowest margin a timeline leaves around a TTL boundary.
	Drift  time.Duration `json:"drift_ns,omitempty"`
	Margin time.Duration `json:"margin_ns,omitempty"`
	// Slower lists, on real servers, the drift of each earlier run of the
	// cell that drifted beyond its margins: such a run's verdict may be off,
	// so the cell ran again at twice the time scale (up to twice more). The
	// result is the last run's; Margin is its margin.
	Slower []time.Duration `json:"slower_drift_ns,omitempty"`
	// Untrusted marks a cell on real servers whose last run, after the
	// slower ones, still kept to its clock more loosely than its margins:
	// its verdict may be off, so it neither passes nor fails (check's
	// exit code 3 when no cell failed).
	Untrusted bool            `json:"untrusted,omitempty"`
	Verdicts  []trace.Verdict `json:"verdicts"`
	Trace     *trace.Trace    `json:"-"`
}

// Check runs every scenario against every implementation, in parallel, and
// compares the broken invariants with the expectation. Results come in
// scenario-major catalogue order. Only a run that could not complete is an
// error.
func Check() ([]Result, error) {
	return CheckCells(All(), lockimpl.All())
}

// CheckCells runs the given scenarios against the given implementations.
func CheckCells(scs []Scenario, impls []lockimpl.Info) ([]Result, error) {
	return checkOn(context.Background(), nil, scs, impls, runtime.GOMAXPROCS(0))
}

// CheckOn runs the whole matrix on real servers, parallel cells at a time,
// each cell under its own key prefix. Cells that need a replica share it and
// run one after another. Cells the target cannot run are skipped and say why.
// A cell whose run drifted beyond its margins runs again, slower (Slower).
func CheckOn(ctx context.Context, target *backend.Target, parallel int) ([]Result, error) {
	return checkOn(ctx, target, All(), lockimpl.All(), parallel)
}

// CheckCellsOn is CheckOn for the given lessons and implementations.
func CheckCellsOn(ctx context.Context, target *backend.Target, scs []Scenario, impls []lockimpl.Info, parallel int, opts ...CheckOption) ([]Result, error) {
	return checkOn(ctx, target, scs, impls, parallel, opts...)
}

// A CheckOption changes what a check keeps of its cells.
type CheckOption func(*checkConfig)

type checkConfig struct {
	keep func(Result) bool
}

// KeepTraces keeps the trace (Result.Trace) of only the cells keep says yes
// to, and drops each other's as soon as its cell is judged; by default a
// check keeps every cell's. A trace is most of what a cell leaves: the
// whole matrix's (988 cells) held 150 MB until the check returned, where
// lockstep check, which reports verdicts, needs none.
func KeepTraces(keep func(Result) bool) CheckOption {
	return func(c *checkConfig) { c.keep = keep }
}

// slowerRuns is how often a cell on real servers runs again when its run
// drifted beyond its margins, each time at a slower time scale: twice the
// last, or as slow as the drift just seen needs (slowerSecond).
const slowerRuns = 2

// slowerSecond is the time scale a cell runs again at after a run at second
// kept to its clock only within drift: twice as slow, or slower still where
// the drift is a fixed cost of the lock's (redsync-redlock's is about 65ms
// at any scale, retries × redsync's about 360ms: doubling alone never gave
// them half a scenario second of margin), so that the margin, half a
// scenario second, is 1.25 times the drift (that jump at most up to
// maxSlowerSecond).
func slowerSecond(second, drift time.Duration) time.Duration {
	return max(2*second, min((drift*5/2).Round(time.Millisecond), maxSlowerSecond))
}

// runLanes runs every job, parallel at a time. The exclusive ones (cells
// that reconfigure the shared replica) run one after another in a lane of
// their own, from the start, beside parallel-1 workers for the rest: run
// after the others, as they once were, they made the last minutes of a
// check on real servers one cell at a time. With parallel 1 they run
// first, then the rest, one at a time.
func runLanes[J any](jobs []J, exclusive func(J) bool, parallel int, run func(J)) {
	var lane, rest []J
	for _, j := range jobs {
		if exclusive(j) {
			lane = append(lane, j)
		} else {
			rest = append(rest, j)
		}
	}
	workers := max(parallel, 1)
	var wg sync.WaitGroup
	if len(lane) > 0 {
		if workers == 1 {
			rest = append(lane, rest...)
		} else {
			workers--
			wg.Go(func() {
				for _, j := range lane {
					run(j)
				}
			})
		}
	}
	queue := make(chan J)
	for range workers {
		wg.Go(func() {
			for j := range queue {
				run(j)
			}
		})
	}
	for _, j := range rest {
		queue <- j
	}
	close(queue)
	wg.Wait()
}

// maxSlowerSecond bounds how slow a drift makes a cell run again: a
// minute-long lesson then takes a minute of real time.
const maxSlowerSecond = time.Second

func checkOn(ctx context.Context, target *backend.Target, scs []Scenario, impls []lockimpl.Info, parallel int, opts ...CheckOption) ([]Result, error) {
	var cfg checkConfig
	for _, o := range opts {
		o(&cfg)
	}
	type job struct {
		i    int
		s    Scenario
		impl lockimpl.Info
	}
	results := make([]Result, len(scs)*len(impls))
	errs := make([]error, len(results))
	// A server that cannot be reached stops the whole check: the cells
	// after it would only fail the same way, each after its timeouts.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	run := func(j job) {
		if ctx.Err() != nil {
			return // interrupted, or a server is gone: no new cell starts
		}
		defer func() {
			if err := errs[j.i]; err != nil && backend.Unreachable(err) {
				stop(&UnreachableError{Cell: j.s.ID + " × " + j.impl.Name, Err: err})
			}
		}()
		t := target
		if t != nil {
			t = target.Sub(j.s.ID + ":" + j.impl.Name + ":")
		}
		results[j.i], errs[j.i] = runCell(ctx, j.s, j.impl, t)
		// A run on real servers that kept to its clock more loosely than
		// the timeline's margins (a busy machine, a slow server, lock code
		// that takes long) may have a verdict off: it runs again, slower,
		// under keys of its own.
		for n := 1; t != nil && n <= slowerRuns && errs[j.i] == nil && ctx.Err() == nil; n++ {
			r := results[j.i]
			if r.Skipped != "" || r.Drift <= r.Margin {
				break
			}
			t = t.Sub(fmt.Sprintf("slower%d:", n))
			t.Second = slowerSecond(t.Second, r.Drift)
			results[j.i], errs[j.i] = runCell(ctx, j.s, j.impl, t)
			results[j.i].Slower = append(r.Slower, r.Drift)
		}
		if r := &results[j.i]; errs[j.i] == nil && r.Skipped == "" && r.Margin > 0 && r.Drift > r.Margin {
			r.Untrusted, r.Pass = true, false
		}
		if r := &results[j.i]; cfg.keep != nil && !cfg.keep(*r) {
			r.Trace = nil
		}
	}
	var jobs []job
	for si, s := range scs {
		for ii, impl := range impls {
			jobs = append(jobs, job{si*len(impls) + ii, s, impl})
		}
	}
	reconfigures := func(j job) bool {
		return target != nil && j.s.Setup.Replica && j.impl.Nodes == 1 && target.Replica != nil
	}
	runLanes(jobs, reconfigures, parallel, run)
	if parallel > 1 && len(jobs) > 1 {
		againAlone(ctx, jobs, func(j job) lockimpl.Info { return j.impl }, func(j job) *error { return &errs[j.i] }, run)
	}
	// A cell whose run failed (an implementation that panics, a server
	// that refuses the run) is a result of its own: the other cells still
	// stand. An interruption or a server gone ends the whole check; what
	// the cells' cleanups could not remove is in the error.
	if err := context.Cause(ctx); err != nil {
		return nil, errors.Join(append([]error{err}, leftBehind(errs)...)...)
	}
	for i, err := range errs {
		if err != nil {
			s, impl := scs[i/len(impls)], impls[i%len(impls)]
			exp, _ := s.Expected(impl.Name)
			results[i] = Result{Scenario: s.ID, Impl: impl.Name, Broken: []string{},
				Expected: nonNil(exp), Error: err.Error()}
		}
	}
	return results, nil
}

// againAlone runs again, one at a time, each cell given up as stalled: it
// ran beside others, and on a busy machine a lock that computes for long
// in a call (1.5 s of CPU, with 33 lessons on two cores: 24 s of wall time)
// looks endless there. Once a cell of an implementation stalls alone too,
// its lock runs without end, and that implementation's other stalled cells
// keep their error rather than each cost the stall bound again.
func againAlone[J any](ctx context.Context, jobs []J, impl func(J) lockimpl.Info, errOf func(J) *error, run func(J)) {
	endless := map[string]bool{}
	for _, j := range jobs {
		name := impl(j).Name
		if ctx.Err() != nil || endless[name] || !errors.Is(*errOf(j), sim.ErrStalled) {
			continue
		}
		run(j)
		if err := errOf(j); errors.Is(*err, sim.ErrStalled) {
			endless[name] = true
			*err = fmt.Errorf("%w (again when it ran alone)", *err)
		}
	}
}

// UnreachableError ends a check on real servers: a cell found a server
// it could not reach (refused, reset, timed out). The cells still to run
// did not start, and the check has no table: a cell that could not run is
// not an unmet expectation.
type UnreachableError struct {
	Cell string // the cell that found it
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("stopped at the first server that could not be reached, in %s (the cells after it did not start): %v", e.Cell, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// leftBehind are what the cells' cleanups could not remove, each once.
func leftBehind(errs []error) []error {
	var out []error
	seen := map[string]bool{}
	for _, err := range errs {
		for _, lb := range backend.LeftBehinds(err) {
			if !seen[lb.Error()] {
				seen[lb.Error()] = true
				out = append(out, lb)
			}
		}
	}
	return out
}

func runCell(ctx context.Context, s Scenario, impl lockimpl.Info, target *backend.Target) (Result, error) {
	tr, err := s.RunOn(ctx, impl, target)
	skip := ""
	switch {
	case errors.Is(err, backend.ErrNeedsReplica):
		skip = "needs a replica of the first server: --replica ADDR --disposable"
	case errors.Is(err, backend.ErrEmbeddedOnly):
		skip = "makes the first server a replica again, which would wipe it; embedded only"
	case errors.Is(err, sim.ErrOwnKeyEmbedded):
		skip = "a client takes a lock of its own, beyond the run's ACL user; embedded only"
	case errors.Is(err, backend.ErrNeedsNodes):
		skip = fmt.Sprintf("needs %d servers in --redis", impl.Nodes)
	case errors.Is(err, backend.ErrNeedsCluster):
		skip = "runs on a Redis Cluster: --cluster ADDR"
	}
	expected, judged := s.Expected(impl.Name)
	if skip != "" {
		return Result{Scenario: s.ID, Impl: impl.Name, Broken: []string{}, Expected: nonNil(expected),
			Pass: true, Skipped: skip, Unjudged: !judged}, nil
	}
	if err != nil {
		return Result{}, err
	}
	r := Result{Scenario: s.ID, Impl: impl.Name, Broken: tr.Broken(),
		Expected: expected, Verdicts: tr.Verdicts, Trace: tr, Drift: tr.Drift, Unjudged: !judged}
	if target != nil {
		r.Margin = target.RunMargin(s.Setup.Replica, impl.Nodes)
	}
	if r.Broken == nil {
		r.Broken = []string{}
	}
	if r.Expected == nil {
		r.Expected = []string{}
	}
	// A lesson that has no expectation for the implementation reports its
	// verdicts without judging them.
	r.Pass = !judged || slices.Equal(r.Broken, r.Expected)
	return r, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
