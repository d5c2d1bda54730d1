// Package locktest puts a lock of your own through lockstep's lessons from
// your own go test: every built-in lesson (the classic Redis lock bugs, each
// a scripted timeline) and a bounded search over the clients' schedules, run
// against your lock on embedded Redis servers with virtual time. Each
// invariant your lock breaks and you did not allow fails the test with the
// lesson, the step, a short explanation, and the path of a trace that
// `lockstep --trace PATH` opens in the terminal UI.
//
//	func TestMyLock(t *testing.T) {
//		locktest.Run(t, lockimpl.Info{Name: "mylock", Nodes: 1, New: mylock.New},
//			locktest.Allow("failover", "mutex", "resource")) // known, accepted weaknesses
//	}
//
// Your lock is ordinary go-redis code behind lockimpl.Lock, built by New
// from lockimpl.Env: it must use Env.Nodes for Redis, Env.Key and keys
// under it, and for its owner token Env.Token or one of its own
// (crypto/rand, a UUID), which its traces name canonically, A~1 for A's
// first, keeping the raw values beside (Trace.Tokens). Each lesson runs
// twice on embedded servers, and one whose two runs break different
// invariants (a lock that draws its waits from math/rand) is an error
// naming the lesson and the step where the runs part; Once runs each
// lesson once. It keeps time as Go
// code does — time.Now, time.Sleep, time.Ticker, context.WithTimeout — or
// through Env.Clock: on embedded servers all of them are the lesson's
// virtual time. It may start goroutines of its own with a go statement (a
// watchdog, a library asking its nodes at once), Env.Go or Env.Fan.
// examples/mylock is a complete module that does this, with a watchdog
// written as plain Go; lockimpl/redislock.go and lockimpl/redsync.go wrap
// two libraries.
//
// No verdict is a pass. A lesson or search in which a call of the lock
// blocks for good (a Release waiting on a channel nobody closes) is an
// error naming the call, the line it waits at and, for the search, the
// moves that led there. A search that stops at its time bound (20 s; 10
// minutes with Widen; SearchTimeout sets it) before its depth reports
// what it found and a Problem whose Invariant is Unfinished, saying how
// deep it got: a failure of the test, or, with AllowUnfinished, a skip
// said in the test's log. Before #38 such a search passed in silence, a
// lock too slow to search to its depth as if it had been found sound.
//
// Run fails once for each lesson that could not run and logs what held,
// what was skipped and why, and how far the search got; Inspect returns
// the same as a Report (new in #38), and Check, as before, what broke and
// the errors, now one error per lesson, each on its own line, where they
// were one line joined by "; ".
package locktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Explored is the name Allow gives the bounded search, where a lesson's id
// would go.
const Explored = "explore"

// Option changes what Run and Check do.
type Option func(*config)

type config struct {
	allowed  map[string][]string // lesson (or "*", or Explored) → invariants ("*": all)
	lessons  []scenarios.Scenario
	wide     bool
	search   bool
	traceDir string // the user's (TraceDir), or "" for one of this run's own
	ownDir   struct {
		once sync.Once
		path string
	}
	timeout time.Duration // the search's; 0: its default, 20 s or Widen's 10 minutes
	// unfinishedOK makes a search stopped at its bound a skip (AllowUnfinished).
	unfinishedOK bool
	redis        string // real servers for the lessons, as --redis takes them
	once         bool   // each lesson runs once, not twice (Once; twice.go)
	// The search's depth, attempts and liveness bound (Depth, Attempts,
	// Liveness); 0: the default's, or Widen's.
	depth, attempts int
	liveness        time.Duration
}

// Allow accepts that lesson (an id, Explored for the search, or "*" for
// every one) breaks the given invariants (none given: every invariant). A
// known weakness is still reported, with t.Log, not as a failure.
func Allow(lesson string, invariants ...string) Option {
	return func(c *config) {
		if len(invariants) == 0 {
			invariants = []string{"*"}
		}
		c.allowed[lesson] = append(c.allowed[lesson], invariants...)
	}
}

// Lessons runs these lessons instead of the built-in ones (your own lesson
// files, read with scenarios.ParseLesson or scenarios.LoadLessons).
func Lessons(lessons ...scenarios.Scenario) Option {
	return func(c *config) { c.lessons = lessons }
}

// Widen makes the search wider: three clients, two attempts each, and
// crashes and pauses besides expiry, WideDepth moves deep, for at most 10
// minutes (SearchTimeout changes it); it takes a minute or more rather
// than seconds, and a search it stops at that bound fails the test as any
// unfinished search does. LOCKSTEP_LOCKTEST_WIDE=1 in the environment does
// the same. Depth, Attempts and Liveness change it.
func Widen() Option { return func(c *config) { c.wide = true } }

// WideDepth is Widen's depth in moves: on a 2-core machine the catalogue's
// uuid-lua searches it whole in about 25 s (44,732 states), and in about a
// minute (111,731 states) as a lock that may keep time of its own, as a
// lock is unless its Info says ClockFree; each two moves more cost about
// three times as long.
const WideDepth = 14

// Depth sets how many moves the search looks ahead (SearchDepth, or
// Widen's WideDepth, by default; at most explore.MaxMoves).
func Depth(moves int) Option { return func(c *config) { c.depth = moves } }

// Attempts sets how many times each of the search's clients tries to
// acquire (1, or Widen's 2, by default; at most explore.MaxAttempts).
func Attempts(n int) Option { return func(c *config) { c.attempts = n } }

// Liveness sets the search's liveness bound: how long a client may wait
// while no live client holds the lock (by default the explorer's lease,
// 30 s).
func Liveness(d time.Duration) Option { return func(c *config) { c.liveness = d } }

// Unfinished is the name a problem gives a search that stopped at its
// time bound before its depth, where an invariant's id would go.
const Unfinished = "unfinished"

// SearchTimeout bounds the search's wall-clock time: 20 s by default, 10
// minutes with Widen. A search it stops before its depth fails the test
// (see AllowUnfinished).
func SearchTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// AllowUnfinished accepts a search that stops at its time bound before its
// depth: what it found is reported as ever, and the rest is a skip, said
// with t.Log, not a failure. Allow, even of every invariant, does not
// accept it: the invariants were not judged beyond where the search got.
func AllowUnfinished() Option { return func(c *config) { c.unfinishedOK = true } }

// Once runs each lesson once. By default each runs twice on embedded
// servers, and a lesson whose two runs break different invariants is an
// error (a lock that draws its waits from math/rand): the second run
// doubles the lessons' time.
func Once() Option { return func(c *config) { c.once = true } }

// NoSearch skips the search: the lessons only.
func NoSearch() Option { return func(c *config) { c.search = false } }

// TraceDir is where the traces of failures are written; by default a new
// directory of this run's own, $TMPDIR/lockstep-locktest-<random>, which
// no one else can have planted a file or a link in.
func TraceDir(dir string) Option { return func(c *config) { c.traceDir = dir } }

// Redis runs the lessons on real Redis servers instead of embedded ones:
// addrs as lockstep's --redis takes them (host:port, redis://user:pw@host:
// port/db, unix://…, comma-separated; Redlock needs five). Each run's keys
// live under a prefix of their own, and the lock runs as a Redis ACL user
// made for the run and allowed only those keys and the commands locks use
// (Redis 6 or later, and a user who may run ACL SETUSER): Redis itself
// refuses anything else, FLUSHALL or a script's write to another key, and
// the refusal is that lock's failure. Lessons the servers cannot host (a
// failover needs a replica) are left out. The search stays on embedded
// servers: it replays thousands of schedules. LOCKSTEP_REDIS in the
// environment does the same for a test that does not say.
func Redis(addrs string) Option { return func(c *config) { c.redis = addrs } }

// Problem is an invariant a lesson (or the search) broke.
type Problem struct {
	Lock   string
	Lesson string // a lesson's id, or Explored
	// Invariant is the id of the invariant broken, or Unfinished: the
	// search stopped at its time bound before its depth.
	Invariant string
	Step      int
	T         time.Duration
	// Explanation is three lines: what the lesson is, what broke and why,
	// and how to look at it.
	Explanation string
	// Trace is the path of the trace file, for lockstep --trace.
	Trace string
	// Allowed says the options accept it.
	Allowed bool
}

func (p Problem) String() string {
	if p.Invariant == Unfinished {
		return fmt.Sprintf("%s × %s: the search did not finish\n%s", p.Lesson, p.Lock, p.Explanation)
	}
	s := fmt.Sprintf("%s × %s: %s broken at step %d (t=%s)\n%s", p.Lesson, p.Lock, p.Invariant, p.Step, narrate.Secs(p.T), p.Explanation)
	if p.Trace != "" {
		s += "\n  step through it: lockstep --trace " + p.Trace
	}
	return s
}

// Run checks info against every lesson and the search, and fails t for each
// problem the options do not allow. A run that cannot complete (the lock
// panicked, stalled, blocked in a call for good, or the search failed)
// fails t too, and so does a search that stopped at its time bound before
// its depth, unless AllowUnfinished makes that a logged skip.
//
// Run puts the lessons and the search in a child process of the test
// binary, which runs this test again (only the call of Run that started
// it does any work there): a panic in a goroutine the lock started itself
// — which no Go program survives — then ends that child, and becomes the
// error of the lesson it was in, as a panic in Env.Go's goroutines does;
// the other lessons still run. Keep the test to its calls of Run. Check
// runs in the calling process.
func Run(t testing.TB, info lockimpl.Info, opts ...Option) {
	t.Helper()
	if spec, ok := childSpec(); ok {
		runChild(t, spec, info, opts)
		return
	}
	var rep Report
	var err error
	if tt, ok := t.(*testing.T); ok && testing.Testing() {
		rep, err = isolated(tt, info)
	} else {
		rep, err = Inspect(info, opts...)
	}
	if err != nil {
		t.Error(err)
		return
	}
	logReport(t, info.Name, rep)
	var allowed []string
	for _, p := range rep.Problems {
		if p.Allowed && p.Invariant == Unfinished {
			t.Logf("%s", p) // a skip the caller asked for: said in full
		} else if p.Allowed {
			allowed = append(allowed, p.Lesson+" "+p.Invariant)
		} else {
			t.Errorf("%s", p)
		}
	}
	if len(allowed) > 0 {
		t.Logf("%s: %d known weaknesses, allowed: %s", info.Name, len(allowed), strings.Join(allowed, ", "))
	}
	for _, e := range rep.Errors {
		t.Error("locktest: " + e) // each on its own: one lesson's is often a page
	}
}

// newConfig is the configuration opts and the environment give.
func newConfig(opts []Option) *config {
	c := &config{allowed: map[string][]string{}, search: true}
	for _, o := range opts {
		o(c)
	}
	if os.Getenv("LOCKSTEP_LOCKTEST_WIDE") == "1" {
		c.wide = true
	}
	if c.redis == "" {
		c.redis = os.Getenv("LOCKSTEP_REDIS")
	}
	return c
}

func checkInfo(info lockimpl.Info) error {
	if info.Name == "" || info.New == nil || info.Nodes < 1 {
		return fmt.Errorf("locktest: lockimpl.Info needs a Name, Nodes ≥ 1 and New")
	}
	return nil
}

// Check is Run without a testing.TB: the problems it finds, allowed ones
// included (an unfinished search among them, as Run fails or logs it),
// and the errors of runs that could not complete. It runs in the
// calling process: a panic in a goroutine the lock started itself ends it.
func Check(info lockimpl.Info, opts ...Option) ([]Problem, error) {
	r, err := Inspect(info, opts...)
	if err != nil {
		return nil, err
	}
	return r.Problems, r.err()
}

func (c *config) lessonList() []scenarios.Scenario {
	if c.lessons != nil {
		return c.lessons
	}
	return scenarios.All()
}

// checkLessons runs lessons against info: the problems they show, the
// lessons that held or were skipped, and the errors of lessons that could
// not run. err: none of them could.
func (c *config) checkLessons(info lockimpl.Info, lessons []scenarios.Scenario) (Report, error) {
	results, err := c.runLessons(lessons, info)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Errors: c.again(info, lessons, results)}
	for i, r := range results {
		switch {
		case r.Error != "":
			cell := r.Scenario + " × " + r.Impl
			rep.Errors = append(rep.Errors, fmt.Sprintf("%s could not run: %s", cell, strings.TrimPrefix(r.Error, cell+": ")))
		case r.Skipped != "":
			rep.Skipped = append(rep.Skipped, r.Scenario+": "+r.Skipped)
		case r.Drift > r.Margin:
			rep.Errors = append(rep.Errors, fmt.Sprintf("%s × %s: the run kept its clock only to %s, beyond its margin of %s: something held the scheduler up that long, lock code that computes or waits on a connection of its own, a busy machine or a slow server (a lock's sleeps, time.Sleep or Env.Clock, do not); its verdicts are not judged",
				r.Scenario, r.Impl, r.Drift, r.Margin))
		default:
			ps := c.lessonProblems(info, lessons[i], r)
			if len(ps) == 0 {
				rep.Held = append(rep.Held, r.Scenario)
			}
			rep.Problems = append(rep.Problems, ps...)
		}
	}
	return rep, nil
}

// lessonProblems are the invariants lesson s broke in result r.
func (c *config) lessonProblems(info lockimpl.Info, s scenarios.Scenario, r scenarios.Result) []Problem {
	var problems []Problem
	for _, v := range r.Verdicts {
		if !v.Broken {
			continue
		}
		p := c.problem(info.Name, s.ID, v, r.Trace)
		p.Explanation = fmt.Sprintf("  %s: %s\n  %s\n  %s", s.ID, s.Title.EN, v.Reason.EN, fixLine(s, info.Name, v.Invariant))
		problems = append(problems, p)
	}
	return problems
}

// checkSearch runs the search against info.
func (c *config) checkSearch(info lockimpl.Info) Report {
	ps, searched, err := c.explore(info)
	rep := Report{Problems: ps, Search: searched}
	if err != nil {
		rep.Errors = []string{err.Error()}
	}
	return rep
}

// realParallel is how many lessons run at once on real servers: they
// mostly wait for leases to run out.
const realParallel = 8

// runLessons runs the lessons against info: on embedded servers, or on the
// real ones Redis names.
func (c *config) runLessons(lessons []scenarios.Scenario, info lockimpl.Info) ([]scenarios.Result, error) {
	if c.redis == "" {
		// Every lesson at once: a lock that blocks where the engine cannot
		// see (a Release waiting on a channel nobody closes) costs each
		// lesson the engine's stall timeout, of the wall clock, and those
		// waits then overlap.
		return scenarios.CheckCellsOn(context.Background(), nil, lessons, []lockimpl.Info{info}, max(runtime.GOMAXPROCS(0), len(lessons)))
	}
	ctx := context.Background()
	target, err := realredis.Connect(ctx, realredis.Config{Addrs: strings.Split(c.redis, ",")})
	if err != nil {
		return nil, fmt.Errorf("locktest: %w", err)
	}
	results, err := scenarios.CheckCellsOn(ctx, target, lessons, []lockimpl.Info{info}, realParallel)
	return results, errors.Join(err, target.Close())
}

// fixLine points at the lesson's fix, and says whether it keeps the
// invariant.
func fixLine(s scenarios.Scenario, lock, inv string) string {
	fix := s.Fix(s.Naive)
	in, err := lockimpl.Lookup(fix)
	if err != nil || fix == lock {
		return "the lesson, in full: lockstep lessons show " + s.ID
	}
	if exp, ok := s.Expected(fix); ok && !slices.Contains(exp, inv) {
		return fmt.Sprintf("the lesson's fix, %s, keeps %s: %s", fix, inv, in.Fixes.EN)
	}
	return fmt.Sprintf("even the lesson's fix, %s, breaks %s here (%s); lockstep lessons show %s", fix, inv, in.Misses.EN, s.ID)
}

// SearchDepth is how many moves the default search looks ahead: the
// catalogue's locks take one to two and a half seconds to it, and the
// 误删 schedules are 9 to 10 moves long. Widen searches to the explorer's
// own default depth.
const SearchDepth = 14

// The search's default time bounds: the plain search's, and Widen's.
const (
	SearchTimeoutDefault = 20 * time.Second
	WideTimeoutDefault   = 10 * time.Minute
)

func (c *config) explore(info lockimpl.Info) ([]Problem, *Searched, error) {
	opts := explore.Options{Depth: SearchDepth, Timeout: SearchTimeoutDefault}
	if c.wide {
		opts = explore.Options{Clients: 3, Attempts: 2, Depth: WideDepth, Timeout: WideTimeoutDefault,
			Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash, sim.FaultPause}}
	}
	if c.timeout > 0 {
		opts.Timeout = c.timeout
	}
	if c.depth > 0 {
		opts.Depth = c.depth
	}
	if c.attempts > 0 {
		opts.Attempts = c.attempts
	}
	opts.Liveness = c.liveness
	start := time.Now()
	res, err := explore.Search(context.Background(), info, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("the search: %w", err)
	}
	o := res.Options
	searched := &Searched{Clients: o.Clients, Attempts: o.Attempts, Faults: faults(o.Faults), Depth: o.Depth,
		Reached: res.Depth, States: res.States, Finished: !res.TimedOut && !res.OverBudget, Complete: res.Complete, Elapsed: time.Since(start)}
	var problems []Problem
	for _, f := range res.Found {
		v := f.Trace.Verdict(f.Invariant)
		p := c.problem(info.Name, Explored, v, f.Trace)
		p.Explanation = fmt.Sprintf("  the search (%d clients, %d attempts, faults %s) found a schedule of %d moves\n  %s\n  %s",
			res.Options.Clients, res.Options.Attempts, faults(res.Options.Faults), f.Moves, v.Reason.EN,
			"moves: "+strings.Join(f.Trace.Schedule.Moves, ", "))
		problems = append(problems, p)
	}
	if res.TimedOut {
		problems = append(problems, c.unfinished(info.Name, res))
	}
	return problems, searched, nil
}

// unfinished is the problem of a search that stopped at its time bound
// before its depth: nothing it found says the lock keeps its invariants
// in the schedules it did not reach.
func (c *config) unfinished(lock string, res explore.Result) Problem {
	o := res.Options
	how := "give it more time (locktest.SearchTimeout), make the lock's calls cheaper, or skip what it did not reach with locktest.AllowUnfinished"
	if c.unfinishedOK {
		how = "skipped, as AllowUnfinished asks"
	}
	return Problem{Lock: lock, Lesson: Explored, Invariant: Unfinished, Allowed: c.unfinishedOK, Explanation: fmt.Sprintf(
		"  the search (%d clients, %d attempts, faults %s) stopped at its time bound of %s, %d moves deep of the %d asked (every schedule of up to %d moves searched, %d states); deeper ones are not judged\n  %s",
		o.Clients, o.Attempts, faults(o.Faults), o.Timeout, res.Depth, o.Depth, res.Depth, res.States, how)}
}

func faults(fs []trace.Fault) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ",")
}

// problem makes the problem of verdict v and writes its trace.
func (c *config) problem(lock, lesson string, v trace.Verdict, tr *trace.Trace) Problem {
	p := Problem{Lock: lock, Lesson: lesson, Invariant: v.Invariant, Step: v.Step, T: v.T,
		Allowed: c.allows(lesson, v.Invariant)}
	p.Trace = c.write(lock, lesson, v.Invariant, tr)
	return p
}

func (c *config) allows(lesson, inv string) bool {
	for _, key := range []string{lesson, "*"} {
		if invs := c.allowed[key]; slices.Contains(invs, inv) || slices.Contains(invs, "*") {
			return true
		}
	}
	return false
}

// write saves tr for lockstep --trace and returns where; "" if it could
// not (the problem is reported all the same). The file is written beside
// its name and renamed onto it, so a link planted under that name is
// replaced, never followed.
func (c *config) write(lock, lesson, inv string, tr *trace.Trace) string {
	dir := c.dir()
	if tr == nil || dir == "" {
		return ""
	}
	if _, err := lockimpl.Lookup(lock); err != nil {
		cp := *tr
		cp.External = true
		tr = &cp
	}
	data, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return ""
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.json", lock, lesson, inv))
	f, err := os.CreateTemp(dir, ".trace-*")
	if err != nil {
		return ""
	}
	defer os.Remove(f.Name())
	_, err = f.Write(append(data, '\n'))
	if err = errors.Join(err, f.Chmod(0o644), f.Close()); err != nil || os.Rename(f.Name(), path) != nil {
		return ""
	}
	return path
}

// dir is where traces go: the user's TraceDir, made if need be, or a new
// directory of this run's own, made the first time a trace is written.
func (c *config) dir() string {
	if c.traceDir != "" {
		if os.MkdirAll(c.traceDir, 0o755) != nil {
			return ""
		}
		return c.traceDir
	}
	c.ownDir.once.Do(func() {
		c.ownDir.path, _ = os.MkdirTemp("", "lockstep-locktest-")
	})
	return c.ownDir.path
}
