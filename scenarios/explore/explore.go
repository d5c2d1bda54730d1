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
// default 100, 4.8 s at 400). The explore and check commands and this
// package's tests set it, unless GOGC is set; a library does not change its
// process's collector by itself. (lockstep check's cells are worlds too:
// 2.1 s of CPU at 400, 2.8 s at 100, for 988 cells.)
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
	// ahead, when set, is the node's expansion, made ahead of its level
	// (lookahead).
	ahead *expansion
}

func (n *node) moves() []string {
	out := make([]string, n.depth)
	for ; n.parent != nil; n = n.parent {
		out[n.depth-1] = n.move
	}
	return out
}

// lookahead is how many levels below its own a worker expands a new state
// on the spot, in the world its move was just made in, rather than leave it
// to a replay at its own level: the world is at hand and its memory is
// still in the core's cache, where a world kept for later would not be. A
// state counts as new here when no level before has it and no other worker
// has taken it (searcher.take); the level's merge decides, in order, as
// before, and an expansion made for a state that turns out not to be new
// is dropped. The expansion of a state is the same wherever it is made,
// so what the search finds is the same.
const lookahead = 1

// Search explores impl's schedules breadth first, so that the first
// counterexample found for each invariant is a shortest one. Each level of
// the search tree is expanded in parallel and merged in order, so the same
// arguments give the same result — unless the timeout strikes first.
//
// A state is expanded in a world in that state: a replay of its schedule,
// or (lookahead) the world its move was made in. Its first move goes on in
// that world; each other move needs a replay of its own.
func Search(ctx context.Context, impl lockimpl.Info, opts Options) (Result, error) {
	return searchAhead(ctx, impl, opts, lookahead)
}

// searchAhead is Search, expanding new states up to ahead levels ahead
// (lookahead).
func searchAhead(ctx context.Context, impl lockimpl.Info, opts Options, ahead int) (Result, error) {
	opts = opts.withDefaults()
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	s := &searcher{ctx: ctx, impl: impl, opts: opts, ahead: ahead, start: time.Now(), invs: invariant.IDs(),
		res: Result{Impl: impl.Name, Options: opts}}
	s.hash = func(st *sim.Stepper) uint64 { return Hash(st.State()) }
	if opts.Named {
		s.hash = func(st *sim.Stepper) uint64 { return HashNamed(st.State()) }
	}
	if err := s.run(); err != nil {
		return s.res, err
	}
	if !s.served && s.unserved != nil {
		return Result{Impl: impl.Name, Options: opts}, fmt.Errorf("no verdict: %s did not run in any of the %d states the search reached: %w", impl.Name, len(s.visited), s.unserved)
	}
	res := s.res
	res.TimedOut = s.timedOut.Load()
	res.States = len(s.visited)
	res.Complete = len(s.frontier) == 0 && !res.TimedOut && !res.OverBudget
	res.Elapsed = time.Since(s.start)
	slices.SortFunc(res.Found, func(a, b Finding) int {
		return slices.Index(s.invs, a.Invariant) - slices.Index(s.invs, b.Invariant)
	})
	return res, nil
}

// searcher is one Search under way.
type searcher struct {
	ctx   context.Context
	impl  lockimpl.Info
	opts  Options
	ahead int // lookahead
	start time.Time
	invs  []string
	hash  func(*sim.Stepper) uint64
	res   Result

	// visited is written by the merge, between the expansions of a
	// level's chunks; the workers read it during them.
	visited  map[uint64]bool
	taken    sync.Map     // the states expanded ahead of their level
	takenN   atomic.Int64 // how many
	frontier []*node
	found    int // the invariants found broken, as a bit set
	timedOut atomic.Bool
	// served: the lock ran in some state the search reached (a command
	// went through, a call returned without error). A search where it
	// never did has no verdict: what it "found" the lock broke by not
	// running (liveness, a lock nobody ever gets). unserved is why, from
	// the first state merged that says.
	served   bool
	unserved error
}

// expansion is every move from a node, in order, and what each led to.
type expansion struct {
	children []child
	err      error
}

// child is one move from a node and the state it led to.
type child struct {
	move      string
	hash      uint64
	broken    int
	served    bool
	noVerdict error
	ahead     *expansion // the state's own expansion, made ahead (lookahead)
}

// run searches level by level from the root.
func (s *searcher) run() error {
	root := &node{}
	st, err := s.replay(nil)
	if err != nil {
		return err
	}
	s.visited = map[uint64]bool{s.hash(st): true}
	root.broken = s.bits(st)
	st.Close()
	s.frontier = []*node{root}
	for len(s.frontier) > 0 && s.res.Depth < s.opts.Depth && s.found != 1<<len(s.invs)-1 && !s.stopped() && !s.res.OverBudget {
		level, err := s.level()
		if err != nil || s.timedOut.Load() || s.res.OverBudget {
			return err
		}
		s.frontier = level
		s.res.Depth++
		if s.opts.First && len(s.res.Found) > 0 {
			return nil
		}
		if s.opts.MaxStates > 0 && len(s.visited) > s.opts.MaxStates && len(s.frontier) > 0 && s.res.Depth < s.opts.Depth {
			s.res.OverBudget = true
			return nil
		}
	}
	return nil
}

// level expands the frontier, in chunks when the search has a state
// budget (so that it stops within a chunk of the budget, at the same place
// on every machine), and returns the next level: the new states, in order.
func (s *searcher) level() ([]*node, error) {
	step := len(s.frontier)
	if s.opts.MaxStates > 0 {
		step = min(step, budgetChunk)
	}
	var level []*node
	for lo := 0; lo < len(s.frontier); lo += step {
		part := s.frontier[lo:min(lo+step, len(s.frontier))]
		for i, x := range s.expandAll(part, lo) {
			if x == nil {
				break // the timeout: the rest of this level was not expanded
			}
			if x.err != nil {
				return nil, x.err
			}
			next, err := s.merge(part[i], x.children)
			if err != nil {
				return nil, err
			}
			level = append(level, next...)
		}
		if s.timedOut.Load() {
			return level, nil
		}
		if s.opts.MaxStates > 0 && len(s.visited) > s.opts.MaxStates && lo+len(part) < len(s.frontier) {
			// A part of the level: what it found is still shortest, but
			// the level does not count as searched.
			s.res.OverBudget = true
			return level, nil
		}
	}
	return level, nil
}

// expandAll expands part on every core, each node's expansion in its place
// (nil where the timeout struck first); lo is where part starts in its
// level, for the progress reports.
func (s *searcher) expandAll(part []*node, lo int) []*expansion {
	out := make([]*expansion, len(part))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(part) || s.stopped() {
					return
				}
				out[i] = s.expand(part[i])
				if s.opts.Progress != nil && (lo+i)%50 == 0 {
					s.opts.Progress(Progress{Depth: s.res.Depth + 1, States: len(s.visited), Elapsed: time.Since(s.start)})
				}
			}
		})
	}
	wg.Wait()
	return out
}

// merge adds n's children to the search, in order: a finding for each
// invariant one of them breaks first, and the states not seen before,
// which it returns.
func (s *searcher) merge(n *node, children []child) ([]*node, error) {
	var next []*node
	for _, c := range children {
		s.seen(c)
		cn := &node{parent: n, move: c.move, depth: n.depth + 1, broken: n.broken | c.broken, ahead: c.ahead}
		for j, inv := range s.invs {
			if c.broken&(1<<j) == 0 || n.broken&(1<<j) != 0 || s.found&(1<<j) != 0 {
				continue
			}
			s.found |= 1 << j
			f, err := finding(s.ctx, s.impl, s.opts, inv, slices.Concat(s.opts.Prefix, cn.moves()))
			if err != nil {
				return next, err
			}
			s.res.Found = append(s.res.Found, f)
		}
		if !s.visited[c.hash] {
			s.visited[c.hash] = true
			next = append(next, cn)
		}
	}
	return next, nil
}

// expand is n's expansion: made ahead, or made now in a replay of n.
func (s *searcher) expand(n *node) *expansion {
	if x := n.ahead; x != nil {
		n.ahead = nil
		return x
	}
	moves := n.moves()
	parent, err := s.replay(moves)
	if err != nil {
		return &expansion{err: err}
	}
	return s.expandIn(parent, moves, s.ahead)
}

// expandIn makes every move from the state a schedule of moves leads to,
// parent a world in it, which it closes: the first move goes on in
// parent, the others each in a replay. A new state a move leads to is
// expanded on the spot, up to ahead levels deeper (lookahead).
func (s *searcher) expandIn(parent *sim.Stepper, moves []string, ahead int) *expansion {
	enabled := parent.Moves()
	if len(enabled) == 0 {
		parent.Close()
	}
	x := &expansion{}
	for i, m := range enabled {
		st := parent // the first move goes on from the parent's own world
		if i > 0 {
			var err error
			if st, err = s.replay(moves); err != nil {
				return &expansion{err: err}
			}
		}
		if err := st.Do(m.ID); err != nil {
			// A call blocked for good, a panic: the schedule that led
			// there makes it again.
			st.Close()
			return &expansion{err: fmt.Errorf("the search stopped after the moves %s: %w", strings.Join(slices.Concat(s.opts.Prefix, moves, []string{m.ID}), ", "), err)}
		}
		c := child{move: m.ID, hash: s.hash(st), broken: s.bits(st), served: st.Served()}
		if !c.served {
			c.noVerdict = st.NoVerdict()
		}
		if ahead > 0 && len(moves)+1 < s.opts.Depth && s.take(c.hash) {
			c.ahead = s.expandIn(st, append(moves[:len(moves):len(moves)], m.ID), ahead-1)
		} else {
			st.Close()
		}
		x.children = append(x.children, c)
	}
	return x
}

// take says whether a worker expands a state ahead of its level: one no
// level before has, that no worker has taken, while the search goes on —
// and, under a state budget, while the states seen, and three times those
// taken, are fewer than it allows. A search stopped by its budget stops
// within a level, and work ahead of where it stops is work for nothing
// (gc-pause × uuid-lua-watchdog, at its budget of 2,500 states, took twice
// as long with no bound). A state taken is of the next level, which the
// search reaches only if that level, and the part of the one after it
// that comes first, fit in the budget: each state brings about two more.
// Counting taken states once, three budgeted searches made 4% fewer to 8%
// more replays than without looking ahead; three times, 3% to 8% fewer.
func (s *searcher) take(hash uint64) bool {
	if s.visited[hash] || s.stopped() {
		return false
	}
	if s.opts.MaxStates > 0 && len(s.visited)+3*int(s.takenN.Load()) >= s.opts.MaxStates {
		return false
	}
	if _, taken := s.taken.LoadOrStore(hash, true); taken {
		return false
	}
	s.takenN.Add(1)
	return true
}

// replay makes a new world and the search's prefix and moves in it.
func (s *searcher) replay(moves []string) (*sim.Stepper, error) {
	st, err := NewWorld(s.impl, *s.opts.schedule(nil))
	if err != nil {
		return nil, err
	}
	if err := st.DoAll(slices.Concat(s.opts.Prefix, moves)); err != nil {
		st.Close()
		return nil, fmt.Errorf("replaying %v: %w", moves, err)
	}
	return st, nil
}

// bits is the invariants st's world has broken, as a bit set.
func (s *searcher) bits(st *sim.Stepper) int {
	b := 0
	for i, inv := range s.invs {
		if slices.Contains(st.Broken(), inv) {
			b |= 1 << i
		}
	}
	return b
}

// seen notes whether the lock ran in the state c led to (searcher.served).
func (s *searcher) seen(c child) {
	if c.served {
		s.served = true
	} else if s.unserved == nil {
		s.unserved = c.noVerdict
	}
}

func (s *searcher) stopped() bool {
	if s.ctx.Err() != nil || s.opts.Timeout > 0 && time.Since(s.start) > s.opts.Timeout {
		s.timedOut.Store(true)
	}
	return s.timedOut.Load()
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
