// Package explore searches the schedules of a lock implementation for
// counterexamples: every interleaving of the clients' Redis commands, the
// passing of time and the allowed faults, breadth first, up to a bound, with
// the invariants checked after every move. It runs the real go-redis
// implementation on the simulator's engine (scenarios/sim), one move at a
// time; a state seen before is not explored again.
package explore

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// GCPercent is the garbage collector's target that suits a search: every
// state builds a world (servers, clients, connections) that is garbage a
// moment later, and the live heap stays small, so collecting a quarter as
// often halves the search's time (BenchmarkSearchUUIDLua: 10.9 s at the
// default 100, 4.8 s at 400). The explore command and this package's tests
// set it, unless GOGC is set; a library does not change its process's
// collector by itself.
const GCPercent = 400

// MaxStatesBound is the most states a search may be given to see
// (Options.MaxStates), and the command line's default: the search keeps
// every state it has seen, about 1.3 KB each (481 MB at 371,000 states,
// measured on uuid-lua with three clients), so a million states stay under
// 2 GB.
const MaxStatesBound = 1_000_000

// DefaultDepth is the default bound on a schedule's length.
const DefaultDepth = 30

// The world every search runs in: one lock, a lease of TTL, each client
// working for Work inside it (well within the lease), a retry every TTL/2,
// and liveness broken after a TTL without a live holder.
const (
	TTL  = 30 * time.Second
	Work = 5 * time.Second
)

// Progress is the state of a running search.
type Progress struct {
	Depth   int // the depth being explored
	States  int // distinct states so far
	Elapsed time.Duration
}

// Finding is the shortest schedule found that breaks one invariant.
type Finding struct {
	Invariant string
	// Moves is the schedule's length; Trace replays it, ending with the
	// violation (the trace's Schedule says how to make it again).
	Moves int
	Trace *trace.Trace
}

// Result is what a search found, and how far it looked.
type Result struct {
	Impl    string
	Options Options
	// Found has the shortest counterexample of each invariant that broke,
	// in invariant order.
	Found []Finding
	// States counts the distinct states explored.
	States int
	// Depth is how many moves every schedule was explored to: every
	// schedule of up to Depth moves was tried (or led to a state seen
	// before).
	Depth int
	// Complete says that no schedule is longer than Depth: every reachable
	// state was explored.
	Complete bool
	// TimedOut says the search stopped at Options.Timeout before Depth.
	TimedOut bool
	// OverBudget says the search stopped at Options.MaxStates before Depth.
	OverBudget bool
	Elapsed    time.Duration
}

// Broken reports whether the search found invariant id broken.
func (r Result) Broken(id string) (Finding, bool) {
	for _, f := range r.Found {
		if f.Invariant == id {
			return f, true
		}
	}
	return Finding{}, false
}

// NewWorld is the explorer's world for impl that schedule s runs in (its
// moves aside): the standard one, with the liveness bound, guard and stock
// s gives.
func NewWorld(impl lockimpl.Info, s trace.Schedule) (*sim.Stepper, error) {
	// Redlock runs on three nodes (a majority of two) unless s asks for
	// five: the same algorithm, with schedules short enough to search.
	setup := sim.Setup{TTL: TTL, LivenessBound: TTL, Horizon: 10 * time.Minute, Nodes: DefaultNodes, Guard: s.Guard, Stock: s.Stock}
	if s.Nodes != 0 {
		setup.Nodes = s.Nodes
	}
	if s.Liveness > 0 {
		setup.LivenessBound = s.Liveness
	}
	if slices.Contains(s.Faults, sim.FaultFailover) && impl.Nodes == 1 {
		// A replica 1 s behind, which Sentinel promotes 1 s after the
		// primary dies: the failover lessons' down-after (Sentinel's own
		// default, 30 s, is as long as the lease).
		setup.Replica, setup.Lag, setup.DownAfter = true, time.Second, time.Second
	}
	progs := make([]sim.Program, s.Clients)
	for i := range progs {
		progs[i] = sim.Program{Work: Work, Retry: TTL / 2, Attempts: s.Attempts, Reenter: s.Reenter, Check: s.Check, Lease: s.Lease, Read: i < s.Readers}
	}
	return sim.NewStepper(setup, progs, impl, s.Faults)
}

// schedule is the world opts search in, with moves.
func (o Options) schedule(moves []string) *trace.Schedule {
	nodes := o.Nodes
	if nodes == DefaultNodes {
		nodes = 0 // a schedule in the default world says nothing of it
	}
	return &trace.Schedule{Clients: o.Clients, Nodes: nodes, Attempts: o.Attempts, Faults: o.Faults,
		Liveness: o.Liveness, Guard: o.Guard, Stock: o.Stock, Reenter: o.Reenter, Check: o.Check, Readers: o.Readers, Lease: o.Lease, Moves: moves}
}

// node is a schedule in the search tree: its last move and its parent.
type node struct {
	parent *node
	move   string
	depth  int
	broken int // invariants broken on the way, as a bit set
}

func (n *node) moves() []string {
	out := make([]string, n.depth)
	for ; n.parent != nil; n = n.parent {
		out[n.depth-1] = n.move
	}
	return out
}

// Search explores impl's schedules breadth first, so that the first
// counterexample found for each invariant is a shortest one. Each level of
// the search tree is expanded in parallel and merged in order, so the same
// arguments give the same result — unless the timeout strikes first.
func Search(ctx context.Context, impl lockimpl.Info, opts Options) (Result, error) {
	opts = opts.withDefaults()
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	start := time.Now()
	res := Result{Impl: impl.Name, Options: opts}
	replay := func(moves []string) (*sim.Stepper, error) {
		st, err := NewWorld(impl, *opts.schedule(nil))
		if err != nil {
			return nil, err
		}
		if err := st.DoAll(slices.Concat(opts.Prefix, moves)); err != nil {
			st.Close()
			return nil, fmt.Errorf("replaying %v: %w", moves, err)
		}
		return st, nil
	}
	root := &node{}
	st, err := replay(nil)
	if err != nil {
		return res, err
	}
	invs := invariant.IDs()
	bits := func(st *sim.Stepper) int {
		b := 0
		for i, inv := range invs {
			if slices.Contains(st.Broken(), inv) {
				b |= 1 << i
			}
		}
		return b
	}
	hash := func(st *sim.Stepper) uint64 { return Hash(st.State()) }
	if opts.Named {
		hash = func(st *sim.Stepper) uint64 { return HashNamed(st.State()) }
	}
	visited := map[uint64]bool{hash(st): true}
	root.broken = bits(st)
	st.Close()
	// served: the lock ran in some state the search reached (a command
	// went through, a call returned without error). A search where it
	// never did has no verdict: what it "found" the lock broke by not
	// running (liveness, a lock nobody ever gets).
	var served atomic.Bool
	var unserved struct {
		sync.Mutex
		err error
	}
	seen := func(st *sim.Stepper) {
		if st.Served() {
			served.Store(true)
		} else if err := st.NoVerdict(); err != nil {
			unserved.Lock()
			if unserved.err == nil {
				unserved.err = err
			}
			unserved.Unlock()
		}
	}
	var timedOut atomic.Bool
	stopped := func() bool {
		if ctx.Err() != nil || opts.Timeout > 0 && time.Since(start) > opts.Timeout {
			timedOut.Store(true)
		}
		return timedOut.Load()
	}
	// expand makes every move from n, each on its own replay of n.
	type child struct {
		move   string
		hash   uint64
		broken int
	}
	expand := func(n *node) ([]child, error) {
		moves := n.moves()
		parent, err := replay(moves)
		if err != nil {
			return nil, err
		}
		enabled := parent.Moves()
		var out []child
		for i, m := range enabled {
			st := parent // the first move goes on from the parent's own replay
			if i > 0 {
				if st, err = replay(moves); err != nil {
					return nil, err
				}
			}
			if err := st.Do(m.ID); err != nil {
				// A call blocked for good, a panic: the schedule that
				// led there makes it again.
				st.Close()
				return nil, fmt.Errorf("the search stopped after the moves %s: %w", strings.Join(slices.Concat(opts.Prefix, moves, []string{m.ID}), ", "), err)
			}
			out = append(out, child{m.ID, hash(st), bits(st)})
			seen(st)
			st.Close()
		}
		if len(enabled) == 0 {
			parent.Close()
		}
		return out, nil
	}
	frontier := []*node{root}
	found := 0
	workers := max(runtime.GOMAXPROCS(0), 1)
	// With a state budget a level is expanded in chunks, merged in order,
	// so that the search stops within a chunk of the budget, at the same
	// place on every machine.
	chunk := func(n int) int {
		if opts.MaxStates > 0 {
			return min(n, budgetChunk)
		}
		return n
	}
	for len(frontier) > 0 && res.Depth < opts.Depth && found != 1<<len(invs)-1 && !stopped() && !res.OverBudget {
		var level []*node
		for lo := 0; lo < len(frontier) && !res.OverBudget; lo += chunk(len(frontier)) {
			part := frontier[lo:min(lo+chunk(len(frontier)), len(frontier))]
			type result struct {
				children []child
				err      error
				done     bool
			}
			results := make([]result, len(part))
			var next atomic.Int64
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						i := int(next.Add(1) - 1)
						if i >= len(part) || stopped() {
							return
						}
						c, err := expand(part[i])
						results[i] = result{c, err, true}
						if opts.Progress != nil && (lo+i)%50 == 0 {
							opts.Progress(Progress{Depth: res.Depth + 1, States: len(visited), Elapsed: time.Since(start)})
						}
					}
				})
			}
			wg.Wait()
			for i, r := range results {
				if !r.done {
					break // the timeout: the rest of this level was not expanded
				}
				if r.err != nil {
					return res, r.err
				}
				n := part[i]
				for _, c := range r.children {
					cn := &node{parent: n, move: c.move, depth: n.depth + 1, broken: n.broken | c.broken}
					for j, inv := range invs {
						if c.broken&(1<<j) == 0 || n.broken&(1<<j) != 0 || found&(1<<j) != 0 {
							continue
						}
						found |= 1 << j
						f, err := finding(ctx, impl, opts, inv, slices.Concat(opts.Prefix, cn.moves()))
						if err != nil {
							return res, err
						}
						res.Found = append(res.Found, f)
					}
					if !visited[c.hash] {
						visited[c.hash] = true
						level = append(level, cn)
					}
				}
			}
			if timedOut.Load() {
				break
			}
			if opts.MaxStates > 0 && len(visited) > opts.MaxStates && lo+len(part) < len(frontier) {
				// A part of the level: what it found is still shortest,
				// but the level does not count as searched.
				res.OverBudget = true
			}
		}
		if timedOut.Load() || res.OverBudget {
			break
		}
		frontier = level
		res.Depth++
		if opts.First && len(res.Found) > 0 {
			break
		}
		if opts.MaxStates > 0 && len(visited) > opts.MaxStates && len(frontier) > 0 && res.Depth < opts.Depth {
			res.OverBudget = true
			break
		}
	}
	if !served.Load() && unserved.err != nil {
		return Result{Impl: impl.Name, Options: opts}, fmt.Errorf("no verdict: %s did not run in any of the %d states the search reached: %w", impl.Name, len(visited), unserved.err)
	}
	res.TimedOut = timedOut.Load()
	res.States = len(visited)
	res.Complete = len(frontier) == 0 && !res.TimedOut && !res.OverBudget
	res.Elapsed = time.Since(start)
	slices.SortFunc(res.Found, func(a, b Finding) int {
		return slices.Index(invs, a.Invariant) - slices.Index(invs, b.Invariant)
	})
	return res, nil
}

// finding makes the counterexample of inv again, for its trace. It runs even
// once ctx is cancelled: a search stopped early still reports what it found,
// and a replay of a found schedule takes milliseconds.
func finding(ctx context.Context, impl lockimpl.Info, opts Options, inv string, moves []string) (Finding, error) {
	tr, err := Replay(context.WithoutCancel(ctx), impl, opts.schedule(moves))
	if err != nil {
		return Finding{}, err
	}
	tr.Title = text.Text{
		EN: fmt.Sprintf("Counterexample: %s under %s", inv, impl.Name),
		ZH: fmt.Sprintf("反例：%s 在 %s 下被破坏", inv, impl.Name),
	}
	return Finding{Invariant: inv, Moves: len(moves), Trace: tr}, nil
}

// Replay makes the run a trace's schedule describes again, against impl, and
// returns its trace. It refuses a schedule outside the explorer's bounds
// (ValidateSchedule) and stops between moves once ctx is done. A move the
// schedule gives by an old name (sim.FaultInfo's OldMoves: "stop redis-2")
// is the move of that name now, and the trace's schedule has it so.
func Replay(ctx context.Context, impl lockimpl.Info, s *trace.Schedule) (*trace.Trace, error) {
	if err := ValidateSchedule(s); err != nil {
		return nil, err
	}
	st, err := NewWorld(impl, *s)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, m := range s.Moves {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replay stopped before move %d: %w", i+1, err)
		}
		if err := st.Do(m); err != nil {
			return nil, fmt.Errorf("move %d (%s): %w", i+1, m, err)
		}
	}
	tr := st.Trace()
	sch := *s
	if len(s.Moves) > 0 {
		sch.Moves = st.Schedule()
	}
	tr.Schedule = &sch
	return tr, nil
}
