package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// realParallel is how many cells check runs at once on real servers: they
// mostly wait for leases to run out, but each must keep up with the clock (a
// cell that falls behind runs again, slower: scenarios.CheckOn).
const realParallel = 8

// check validates the flags without connecting to anything.
func (r *realFlags) check() error {
	if r.redis != "" && r.cluster != "" {
		return errUsage{errors.New("--redis and --cluster are two kinds of servers: give one")}
	}
	if r.cluster != "" && (r.replica != "" || r.disposable) {
		return errUsage{errors.New("--replica and --disposable go with --redis: a cluster's masters have replicas of their own, and lockstep does not reconfigure them")}
	}
	if r.sentinel != "" && (r.redis == "" || r.replica == "" || !r.disposable) {
		return errUsage{errors.New("--sentinel goes with --redis ADDR --replica ADDR --disposable: the Sentinels promote the replica, which lockstep resynchronises for every run")}
	}
	if r.redis == "" && r.cluster == "" && (r.replica != "" || r.disposable || r.noACL) {
		return errUsage{errors.New("--replica, --disposable and --no-acl go with --redis")}
	}
	if r.second < realredis.MinSecond || r.second > realredis.MaxSecond {
		return errUsage{fmt.Errorf("--time-scale %s out of range; valid: %s to %s per scenario second", r.second, realredis.MinSecond, realredis.MaxSecond)}
	}
	return nil
}

// target connects to the real servers, if any were given, and says on
// stderr what earlier runs left there, if anything (noticeLeftovers).
func (r *realFlags) target(ctx context.Context, stderr io.Writer) (*sim.Target, error) {
	if err := r.check(); err != nil || !r.real() {
		return nil, err
	}
	addrs := r.redis
	if r.cluster != "" {
		addrs = r.cluster
	}
	var sentinels []string
	if r.sentinel != "" {
		sentinels = strings.Split(r.sentinel, ",")
	}
	t, err := realredis.Connect(ctx, realredis.Config{Addrs: strings.Split(addrs, ","), Cluster: r.cluster != "", Sentinels: sentinels,
		Replica: r.replica, Disposable: r.disposable, NoACL: r.noACL, Second: r.second})
	if err != nil {
		return nil, errUsage{err}
	}
	cfg := realredis.CleanConfig{Addrs: strings.Split(addrs, ","), Cluster: r.cluster != "", Replica: r.replica, Sentinels: sentinels}
	noticeLeftovers(ctx, stderr, cfg, realredis.Servers(t), t.Replica)
	return t, nil
}

// noticeLeftovers prints one line on stderr when the servers hold what
// earlier runs left: what, and the lockstep clean command that removes
// it. The run itself removes none of it: another run may be using it.
func noticeLeftovers(ctx context.Context, stderr io.Writer, cfg realredis.CleanConfig, servers []*redis.Options, replica *redis.Options) {
	if line := realredis.Notice(ctx, cfg, servers, replica); line != "" {
		fmt.Fprintln(stderr, "lockstep:", line)
	}
}

// real says whether real servers were given (--redis or --cluster).
func (r *realFlags) real() bool { return r.redis != "" || r.cluster != "" }

func addrs(t *sim.Target) []string {
	var out []string
	for _, o := range t.Nodes {
		out = append(out, o.Addr)
	}
	seen := map[string]bool{}
	for _, r := range t.Slots {
		if !seen[r.Master.Addr] {
			seen[r.Master.Addr] = true
			out = append(out, r.Master.Addr+" (cluster master)")
		}
	}
	if t.Replica != nil {
		out = append(out, t.Replica.Addr+" (replica)")
	}
	return out
}

// formats are play's output formats.
var formats = []string{"text", "md", "mermaid", "json", "html"}

// closeTarget releases what a run held on real servers (the lease on the
// replica); an error it meets joins the command's.
func closeTarget(t *sim.Target, err *error) {
	if t != nil {
		*err = errors.Join(*err, t.Close())
	}
}

// unreliable says when a run on real servers kept to its clock so unevenly
// that a verdict near a TTL boundary may be off: its drift is beyond the
// margins the timelines leave around those boundaries.
func unreliable(tr *sim.Trace, t *sim.Target, margin time.Duration, lang string) error {
	if t == nil || tr.Drift <= margin {
		return nil
	}
	return errors.New(text.Newf(
		"the verdict is unreliable: the run kept to its clock only within %s, more than its %s margins (a stalled server or a busy machine); run it again, or give a larger --time-scale",
		"结论不可靠：这次运行与时钟的偏差达 %s，超过了 %s 的余量（服务器卡顿或机器繁忙）；请重跑，或加大 --time-scale",
		tr.Drift.Round(100*time.Microsecond), margin).In(lang))
}

// cmdDocs writes the generated pages of docs/ into a directory, in lang.
// checkCells runs cells on embedded servers, as many at once as there are
// processors; cancelling ctx (a signal) stops them. The package's tests,
// which put the same matrix through many commands, run each set of cells
// once (cache_test.go); the engine's determinism is package scenarios' to
// test.
var checkCells = func(ctx context.Context, scs []scenarios.Scenario, impls []lockimpl.Info) ([]scenarios.Result, error) {
	return scenarios.CheckCellsOn(ctx, nil, scs, impls, runtime.GOMAXPROCS(0))
}

func cmdDocs(ctx context.Context, lang string, pos []string, stdout io.Writer) (int, error) {
	if err := checkLang(lang); err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, errUsage{errors.New("docs needs the directory to write the pages to, e.g. lockstep docs docs")}
	}
	results, err := checkCells(ctx, scenarios.All(), lockimpl.All())
	if err != nil {
		return 0, err
	}
	pages, err := report.DocPagesIn(results, lang)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(pos[0], 0o755); err != nil {
		return 0, err
	}
	names := slices.Sorted(maps.Keys(pages))
	for _, name := range names {
		path := filepath.Join(pos[0], name)
		if err := writeFile(path, func(w io.Writer) error { _, err := w.Write(pages[name]); return err }); err != nil {
			return 0, err
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	return exitOK, nil
}

func cmdList(lang string, pos []string, stdout io.Writer) (int, error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("list takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(lang); err != nil {
		return 0, err
	}
	return exitOK, report.List(stdout, lang)
}

func cmdPlay(ctx context.Context, fs *pflag.FlagSet, f *playFlags, pos []string, stdout, stderr io.Writer) (code int, err error) {
	if err := checkLang(f.lang); err != nil {
		return 0, err
	}
	if !slices.Contains(formats, f.format) {
		return 0, unknownName(f.lang, kindFormat, f.format, formats)
	}
	if err := f.checkSteps(fs); err != nil {
		return 0, err
	}
	if f.trace != "" {
		if len(pos) > 0 || fs.Changed("impl") {
			return 0, errUsage{errors.New("play --trace FILE takes no scenario and no --impl: the trace names them")}
		}
		tr, err := loadTrace(ctx, f.trace)
		if err != nil {
			return 0, err
		}
		return exitOK, f.render(fs, stdout, tr)
	}
	var s scenarios.Scenario
	switch {
	case f.lesson != "":
		if len(pos) > 0 {
			return 0, errUsage{fmt.Errorf("play --lesson FILE takes no scenario: the file is the lesson (got %s)", strings.Join(pos, " "))}
		}
		if s, err = readLesson(f.lesson); err != nil {
			return 0, err
		}
		noteReplaced(stderr, []scenarios.Scenario{s})
	case len(pos) != 1:
		return 0, errUsage{errors.New(text.Newf("play needs one scenario; valid: %s", "play 需要一个场景；可选：%s",
			strings.Join(scenarios.IDs(), ", ")).In(f.lang))}
	default:
		if s, err = scenarios.Lookup(pos[0]); err != nil {
			return 0, unknownName(f.lang, kindScenario, pos[0], scenarios.IDs())
		}
	}
	if !fs.Changed("impl") {
		f.impl = s.Naive
	}
	impl, err := lockimpl.Lookup(f.impl)
	if err != nil {
		return 0, unknownName(f.lang, kindImpl, f.impl, lockimpl.Names())
	}
	target, err := f.real.target(ctx, stderr)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	tr, err := s.RunOn(ctx, impl, target)
	if errors.Is(err, sim.ErrNeedsReplica) {
		return 0, errUsage{fmt.Errorf("%s needs a replica of the first server: add --replica ADDR --disposable", s.ID)}
	}
	if errors.Is(err, sim.ErrNeedsNodes) {
		return 0, errUsage{fmt.Errorf("%s needs %d servers: give %d addresses in --redis", impl.Name, impl.Nodes, impl.Nodes)}
	}
	if errors.Is(err, sim.ErrNeedsCluster) {
		return 0, errUsage{fmt.Errorf("%s runs on a Redis Cluster: give a node of one in --cluster ADDR (or drop --redis)", s.ID)}
	}
	if errors.Is(err, sim.ErrOwnKeyEmbedded) {
		return 0, errUsage{fmt.Errorf("%s has a client that takes a lock of its own, which the run's ACL user on a real server may not: it runs on embedded servers only (drop --redis)", s.ID)}
	}
	if errors.Is(err, sim.ErrEmbeddedOnly) {
		return 0, errUsage{fmt.Errorf("%s × %s brings the failed primary back as a replica, which would wipe the first server: it runs on embedded servers only (drop --redis)", s.ID, impl.Name)}
	}
	if err != nil {
		return 0, err
	}
	if f.format == "html" {
		err = htmlPage(ctx, stdout, stderr, s, tr, target, f.lang)
	} else {
		err = f.render(fs, stdout, tr)
	}
	if err != nil {
		return 0, err
	}
	var margin time.Duration
	if target != nil {
		margin = target.RunMargin(s.Setup, impl.Nodes)
	}
	if err := unreliable(tr, target, margin, f.lang); err != nil {
		return 0, err
	}
	return unmet(stderr, s, tr, f.lang), nil
}

// unmet says on w when a run did not break what its lesson's expect block
// says for the implementation, as check would, and is play's exit code:
// exitUnmet then, exitOK otherwise (and for an implementation the block
// does not name).
func unmet(w io.Writer, s scenarios.Scenario, tr *sim.Trace, lang string) int {
	want, judged := s.Expected(tr.Impl)
	got := tr.Broken()
	if !judged || slices.Equal(got, want) {
		return exitOK
	}
	set := func(ids []string) string { return "{" + strings.Join(ids, ",") + "}" }
	fmt.Fprintln(w, "lockstep:", text.Newf("UNMET %s × %s: the lesson's expect block says %s, the run broke %s",
		"不符合预期 %s × %s：课程文件的 expect 预期 %s，实际 %s", s.ID, tr.Impl, set(want), set(got)).In(lang))
	return exitUnmet
}

// render writes a trace in one of the formats.
func render(w io.Writer, tr *sim.Trace, format, lang string) error {
	switch format {
	case "json":
		return report.JSON(w, tr)
	case "md":
		return report.Handout(w, tr, lang)
	case "mermaid":
		return report.Mermaid(w, tr, lang)
	case "html":
		return writePage(w, io.Discard, []*sim.Trace{tr}, lang)
	}
	return report.Timeline(w, tr, lang)
}

// render writes a trace in play's format; a Mermaid diagram only from
// --from to --to.
func (f *playFlags) render(fs *pflag.FlagSet, w io.Writer, tr *sim.Trace) error {
	if !fs.Changed("from") && !fs.Changed("to") {
		return render(w, tr, f.format, f.lang)
	}
	last := len(tr.Events) - 1
	from, to := f.from, last
	if fs.Changed("to") {
		to = f.to
	}
	var bad []string
	if from > last {
		bad = append(bad, fmt.Sprintf("--from %d", from))
	}
	if to > last {
		bad = append(bad, fmt.Sprintf("--to %d", to))
	}
	if len(bad) > 0 {
		return errUsage{fmt.Errorf("%s out of range: %s × %s has steps 0 to %d", strings.Join(bad, " and "), tr.Scenario, tr.Impl, last)}
	}
	return report.MermaidSteps(w, tr, f.lang, from, to)
}

// checkSteps checks --from and --to before anything runs: they go with
// --format mermaid, are steps (0 or more), and from comes before to.
// Whether the trace has them is known once it is there (render).
func (f *playFlags) checkSteps(fs *pflag.FlagSet) error {
	if !fs.Changed("from") && !fs.Changed("to") {
		return nil
	}
	switch {
	case f.format != "mermaid":
		return errUsage{fmt.Errorf("--from and --to go with --format mermaid, not --format %s", f.format)}
	case f.from < 0 || f.to < 0:
		return errUsage{fmt.Errorf("--from and --to are steps, numbered from 0: not %d", min(f.from, f.to))}
	case fs.Changed("to") && f.from > f.to:
		return errUsage{fmt.Errorf("--from %d comes after --to %d", f.from, f.to)}
	}
	return nil
}

func cmdCheck(ctx context.Context, f *checkFlags, pos []string, stdout, stderr io.Writer) (code int, err error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("check takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(f.lang); err != nil {
		return 0, err
	}
	lessons := scenarios.All()
	if f.course != "" {
		if f.lessons != "" {
			return 0, errUsage{errors.New("--course FILE takes no --lessons: the course names its lessons")}
		}
		if lessons, err = courseLessons(f.course); err != nil {
			return 0, err
		}
	}
	if f.lessons != "" {
		if lessons, err = readLessonDir(f.lessons); err != nil {
			return 0, err
		}
	}
	noteReplaced(stderr, lessons)
	if lessons, err = pickLessons(lessons, f.scenarios, f.lang); err != nil {
		return 0, err
	}
	impls, err := pickImpls(f.impls, f.lang)
	if err != nil {
		return 0, err
	}
	if f.explore {
		return cmdCheckExplore(ctx, f, lessons, impls, stdout, stderr)
	}
	target, err := f.real.target(ctx, stderr)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	var results []scenarios.Result
	if target != nil {
		results, err = scenarios.CheckCellsOn(ctx, target, lessons, impls, realParallel)
	} else {
		results, err = checkCells(ctx, lessons, impls)
	}
	if err != nil {
		return 0, err
	}
	if f.json {
		err = report.JSON(stdout, results)
	} else {
		err = report.Matrix(stdout, results, f.lang)
	}
	if err != nil {
		return 0, err
	}
	if f.junit != "" {
		if err := writeFile(f.junit, func(w io.Writer) error { return report.JUnit(w, results) }); err != nil {
			return 0, err
		}
	}
	code, errored := checkCode(results)
	if errored > 0 {
		// The table is out, with every cell that ran; the ones that could
		// not are a failed run, not an unmet expectation.
		return 0, fmt.Errorf("%d of %d cells could not run (ERROR above)", errored, len(results))
	}
	return code, nil
}

// courseLessons are the lessons of the course in FILE, in its order, each
// once.
func courseLessons(path string) ([]scenarios.Scenario, error) {
	c, err := readCourse(path)
	if err != nil {
		return nil, err
	}
	return c.Lessons(), nil
}

// checkCode is check's exit code for results, and how many cells could not
// run: exitUnmet when a cell breaks other invariants than its lesson
// expects, else exitUntrusted when a cell's verdict did not count, else
// exitOK.
func checkCode(results []scenarios.Result) (code, errored int) {
	unmet, untrusted := false, false
	for _, r := range results {
		switch {
		case r.Error != "":
			errored++
		case r.Untrusted:
			untrusted = true
		case !r.Pass:
			unmet = true
		}
	}
	switch {
	case unmet:
		return exitUnmet, errored
	case untrusted:
		return exitUntrusted, errored
	}
	return exitOK, errored
}
