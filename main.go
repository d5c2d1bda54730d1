// Command lockstep teaches Redis distributed locks by breaking them on
// purpose: it plays scripted timelines of the classic lock bugs against real
// lock implementations and shows the exact step where an invariant breaks.
package main

//go:generate go run . docs docs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/redis/go-redis/v9"

	"lockstep/lockimpl"
	"lockstep/realredis"
	"lockstep/report"
	"lockstep/scenarios"
	"lockstep/scenarios/sim"
	"lockstep/text"
	"lockstep/tui"
)

// Exit codes.
const (
	exitOK    = 0
	exitUnmet = 1 // check: some cell differs from its expectation
	exitUsage = 2 // bad input (unknown names, bad flags) or a run that could not complete
)

const usage = `lockstep — Redis distributed locks, broken on purpose, step by step

usage:
  lockstep [--scenario ID [--impl NAME]] [--autoplay [--speed N]]
                                      the terminal UI: pick a failure mode and an
                                      implementation, step through it, compare;
                                      x on the start screen opens the sandbox
  lockstep --trace FILE               the player, on a saved trace
  lockstep --lessons DIR              the TUI, with your lesson files beside the
                                      built-in lessons
  lockstep --course FILE              the TUI on a course: a class's lessons in
                                      order (docs/lessons.md)
  lockstep list                       the failure modes and the lock implementations
  lockstep play SCENARIO [--impl NAME] [--format text|md|mermaid|json]
                                      play one failure mode as a text timeline
                                      (default impl: the naive one it is about)
  lockstep play --lesson FILE [--impl NAME] [--format …]
                                      play a lesson file of your own
  lockstep check [--lessons DIR] [--json] [--junit FILE]
                                      run every failure mode (or every lesson
                                      file in DIR) against every
                                      implementation; exit 1 if any result
                                      differs from its lesson's expectation
  lockstep lessons list | show ID     the built-in lesson files; show prints
                                      one, a start for your own
  lockstep play --trace FILE [--format …]
                                      play a saved trace (a schedule found by
                                      explore is made again and checked)
  lockstep explore --impl NAME [--clients 2|3] [--attempts N]
          [--faults expiry,crash,pause,failover,restart] [--depth N]
          [--timeout D] [--out DIR] [--json]
                                      search every schedule of the clients'
                                      commands, time and faults for the
                                      shortest counterexample of each
                                      invariant; exit 1 if one is found
  lockstep docs DIR                   regenerate the failure-mode pages (docs/)
                                      from the engine's traces
  lockstep help                       this text

flags, after the command:
  --lang en|zh                        narration language (default en)
  --redis ADDR[,ADDR…]                real servers instead of embedded ones
                                      (host:port, redis://, rediss://, unix://);
                                      with --replica ADDR --disposable for the
                                      failover lessons, --time-scale D (5ms–1s)

exit codes: 0 ok, 1 unmet expectations, 2 bad input or a run that failed
`

// quiet drops go-redis's own log lines ("failed to dial …"); lockstep reports
// every error itself, naming the address.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func main() { os.Exit(realMain(os.Args[1:])) }

// realMain is the program as main runs it, signals included; it returns the
// exit code.
func realMain(args []string) int {
	redis.SetLogger(quiet{})
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	return runCtx(ctx, args, os.Stdout, os.Stderr)
}

// stopSignals end a run the way Ctrl-C does: the run stops, its keys are
// removed and the replica is pointed back at its primary, within two
// seconds. Closing the terminal (SIGHUP), kill (SIGTERM) and Ctrl-\
// (SIGQUIT) must not skip that cleanup.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// isTerminal says whether w is a terminal the TUI can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}

// realParallel is how many cells check runs at once on real servers: they
// mostly wait for leases to run out, but each must keep up with the clock (a
// cell that falls behind runs again, slower: scenarios.CheckOn).
const realParallel = 8

// realFlags are the flags that point lockstep at real servers.
type realFlags struct {
	redis, replica string
	disposable     bool
	second         time.Duration
}

func addRealFlags(fs *flag.FlagSet) *realFlags {
	r := &realFlags{}
	fs.StringVar(&r.redis, "redis", "", "real servers: ADDR[,ADDR...] as host:port or redis://[user:password@]host:port[/db]")
	fs.StringVar(&r.replica, "replica", "", "a replica of the first --redis server, for the failover scenario")
	fs.BoolVar(&r.disposable, "disposable", false, "lockstep may reconfigure the replica (REPLICAOF)")
	fs.DurationVar(&r.second, "time-scale", realredis.DefaultSecond,
		fmt.Sprintf("on real servers, how long one scenario second lasts (%s to %s)", realredis.MinSecond, realredis.MaxSecond))
	return r
}

// check validates the flags without connecting to anything.
func (r *realFlags) check() error {
	if r.redis == "" && (r.replica != "" || r.disposable) {
		return errUsage{errors.New("--replica and --disposable go with --redis")}
	}
	if r.second < realredis.MinSecond || r.second > realredis.MaxSecond {
		return errUsage{fmt.Errorf("--time-scale %s out of range; valid: %s to %s per scenario second", r.second, realredis.MinSecond, realredis.MaxSecond)}
	}
	return nil
}

// target connects to the real servers, if any were given.
func (r *realFlags) target(ctx context.Context) (*sim.Target, error) {
	if err := r.check(); err != nil || r.redis == "" {
		return nil, err
	}
	t, err := realredis.Connect(ctx, realredis.Config{Addrs: strings.Split(r.redis, ","),
		Replica: r.replica, Disposable: r.disposable, Second: r.second})
	if err != nil {
		return nil, errUsage{err}
	}
	return t, nil
}

func addrs(t *sim.Target) []string {
	var out []string
	for _, o := range t.Nodes {
		out = append(out, o.Addr)
	}
	if t.Replica != nil {
		out = append(out, t.Replica.Addr+" (replica)")
	}
	return out
}

// formats are play's output formats.
var formats = []string{"text", "md", "mermaid", "json"}

// commands are the subcommands.
var commands = []string{"list", "play", "check", "explore", "lessons", "docs", "help"}

// errUsage marks errors that are the user's input, not a failed run.
type errUsage struct{ error }

func (e errUsage) Unwrap() error { return e.error }

func run(args []string, stdout, stderr io.Writer) int {
	return runCtx(context.Background(), args, stdout, stderr)
}

func runCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var code int
	var err error
	cmd, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "":
		code, err = cmdTUI(ctx, rest, stdout)
	case "list":
		code, err = cmdList(rest, stdout)
	case "play":
		code, err = cmdPlay(ctx, rest, stdout)
	case "check":
		code, err = cmdCheck(ctx, rest, stdout)
	case "explore":
		code, err = cmdExplore(ctx, rest, stdout, stderr)
	case "lessons":
		code, err = cmdLessons(rest, stdout)
	case "docs":
		code, err = cmdDocs(rest, stdout)
	case "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = errUsage{fmt.Errorf("unknown command %q; valid: %s", cmd, strings.Join(commands, ", "))}
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if err != nil {
		// Bad input and runs that could not complete alike: exit 1 is kept
		// for "the matrix does not meet its expectation".
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// A signal: say which, then what the cleanup could not do,
			// if anything.
			fmt.Fprintf(stderr, "lockstep: interrupted (%v)\n", context.Cause(ctx))
			for line := range strings.SplitSeq(err.Error(), "\n") {
				if !strings.HasSuffix(line, context.Canceled.Error()) {
					fmt.Fprintln(stderr, "lockstep:", sim.CleanText(line))
				}
			}
			return exitUsage
		}
		// An error may quote what the user typed or what a server said:
		// its lines are printed with control characters escaped.
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintln(stderr, "lockstep:", sim.CleanText(line))
		}
		return exitUsage
	}
	return code
}

// parse parses flags that may come before or after the positional
// arguments ("play get-then-del --impl uuid-lua"). Everything after "--" is
// positional.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos, rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, errUsage{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, rest...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// writeFile writes a report to path, all or nothing, with the permissions
// of any file the user creates (0666 less the umask).
func writeFile(path string, write func(io.Writer) error) error {
	f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createTemp creates a new file in dir with mode 0666 (less the umask),
// where os.CreateTemp would give 0600: the file is renamed into place and
// must end up as readable as any other the user writes.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name := filepath.Join(dir, ".lockstep-"+hex.EncodeToString(b))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary name in " + dir)
}

// unknown is err, a lookup's error about an unknown name, in lang: zh is
// its Chinese, a format of the name and the valid names.
func unknown(lang string, err error, zh, name string, valid []string) error {
	return errors.New(text.Text{EN: err.Error(), ZH: fmt.Sprintf(zh, name, strings.Join(valid, ", "))}.In(lang))
}

// isSet says whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func langFlag(fs *flag.FlagSet) *string {
	return fs.String("lang", "en", "narration language: en or zh")
}

func checkLang(lang string) error {
	if lang != "en" && lang != "zh" {
		return errUsage{fmt.Errorf("unknown language %q; valid: en, zh", lang)}
	}
	return nil
}

// cmdTUI opens the terminal UI. Without a terminal (a pipe, CI) it prints
// the usage instead of waiting for keys that never come.
func cmdTUI(ctx context.Context, args []string, stdout io.Writer) (code int, err error) {
	fs := flag.NewFlagSet("lockstep", flag.ContinueOnError)
	rf := addRealFlags(fs)
	var opts tui.Options
	fs.StringVar(&opts.Lang, "lang", "en", "narration language: en or zh")
	fs.StringVar(&opts.Scenario, "scenario", "", "open the player on this failure mode")
	fs.StringVar(&opts.Impl, "impl", "", "and this implementation (default: the scenario's naive one)")
	fs.BoolVar(&opts.Autoplay, "autoplay", false, "start playing at once")
	fs.Float64Var(&opts.Speed, "speed", 2, "autoplay speed in steps per second")
	traceFile := fs.String("trace", "", "open the player on a saved trace (play --format json, explore --out)")
	lessonsDir := fs.String("lessons", "", "list the lesson files in this directory beside the built-in lessons")
	courseFile := fs.String("course", "", "open a course file: a class's lessons, in order")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if *lessonsDir != "" {
		if opts.Lessons, err = readLessonDir(*lessonsDir); err != nil {
			return 0, err
		}
	}
	if *courseFile != "" {
		if *lessonsDir != "" || *traceFile != "" || opts.Scenario != "" {
			return 0, errUsage{errors.New("--course FILE takes no --lessons, --trace or --scenario: the course names its lessons")}
		}
		if opts.Course, err = readCourse(*courseFile); err != nil {
			return 0, err
		}
		// The course's language and speed, unless the command line says.
		if !isSet(fs, "lang") {
			opts.Lang = ""
		}
		if !isSet(fs, "speed") && opts.Course.Speed > 0 {
			opts.Speed = 0
		}
	}
	if len(pos) > 0 {
		if slices.Contains(commands, pos[0]) {
			return 0, errUsage{fmt.Errorf("flags go after the command: lockstep %s %s", pos[0], strings.Join(args[:len(args)-len(pos)], " "))}
		}
		return 0, errUsage{fmt.Errorf("unknown command %q; valid: %s", pos[0], strings.Join(commands, ", "))}
	}
	if isSet(fs, "speed") && opts.Speed == 0 {
		// Options read 0 as "the default"; typed, it is a mistake.
		return 0, errUsage{errors.New("speed 0 out of range; valid: 0 < speed ≤ 16 steps per second")}
	}
	if err := opts.Check(); err != nil {
		return 0, errUsage{err}
	}
	if err := rf.check(); err != nil {
		return 0, err
	}
	if *traceFile != "" {
		if opts.Scenario != "" || opts.Impl != "" {
			return 0, errUsage{errors.New("--trace FILE takes no --scenario or --impl: the trace names them")}
		}
		if opts.Trace, err = loadTrace(ctx, *traceFile); err != nil {
			return 0, err
		}
	}
	target, err := rf.target(ctx)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	if !isTerminal(stdout) {
		fmt.Fprint(stdout, usage)
		return exitOK, nil
	}
	if target == nil {
		return exitOK, tui.Run(ctx, opts, os.Stdin, stdout)
	}
	// A real server's clock cannot be stopped: each trace is recorded on the
	// servers first, then stepped through. Quitting while a recording runs
	// stops it, and waits for it to remove its keys.
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		done    bool
		running sync.WaitGroup
	)
	opts.Recording = strings.Join(addrs(target), ", ")
	opts.Runner = func(s scenarios.Scenario, impl lockimpl.Info) (*sim.Trace, error) {
		mu.Lock()
		if done {
			mu.Unlock()
			return nil, context.Canceled
		}
		running.Add(1)
		mu.Unlock()
		defer running.Done()
		return s.RunOn(ctx, impl, target)
	}
	err = tui.Run(ctx, opts, os.Stdin, stdout)
	mu.Lock()
	done = true
	mu.Unlock()
	cancel()
	running.Wait()
	return exitOK, err
}

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
func unreliable(tr *sim.Trace, t *sim.Target, lang string) error {
	if t == nil || tr.Drift <= t.Margin() {
		return nil
	}
	return errors.New(text.Newf(
		"the verdict is unreliable: the run kept to its clock only within %s, more than its %s margins (a stalled server or a busy machine); run it again, or give a larger --time-scale",
		"结论不可靠：这次运行与时钟的偏差达 %s，超过了 %s 的余量（服务器卡顿或机器繁忙）；请重跑，或加大 --time-scale",
		tr.Drift.Round(100*time.Microsecond), t.Margin()).In(lang))
}

// cmdDocs writes the generated pages of docs/ into a directory.
func cmdDocs(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("docs", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, errUsage{errors.New("docs needs the directory to write the pages to, e.g. lockstep docs docs")}
	}
	results, err := scenarios.Check()
	if err != nil {
		return 0, err
	}
	pages, err := report.DocPages(results)
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

func cmdList(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	lang := langFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("list takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	return exitOK, report.List(stdout, *lang)
}

func cmdPlay(ctx context.Context, args []string, stdout io.Writer) (code int, err error) {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	rf := addRealFlags(fs)
	lang := langFlag(fs)
	implName := fs.String("impl", "", "lock implementation (default: the scenario's naive one)")
	format := fs.String("format", "text", "output format: text, md, mermaid or json")
	traceFile := fs.String("trace", "", "play a trace file (play --format json, explore --out) instead of a scenario")
	lessonFile := fs.String("lesson", "", "play a lesson file of your own instead of a built-in scenario")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	if !slices.Contains(formats, *format) {
		return 0, errUsage{errors.New(text.Newf("unknown format %q; valid: %s", "未知的格式 %q；可选：%s",
			*format, strings.Join(formats, ", ")).In(*lang))}
	}
	if *traceFile != "" {
		if len(pos) > 0 || isSet(fs, "impl") {
			return 0, errUsage{errors.New("play --trace FILE takes no scenario and no --impl: the trace names them")}
		}
		tr, err := loadTrace(ctx, *traceFile)
		if err != nil {
			return 0, err
		}
		return exitOK, render(stdout, tr, *format, *lang)
	}
	var s scenarios.Scenario
	switch {
	case *lessonFile != "":
		if len(pos) > 0 {
			return 0, errUsage{fmt.Errorf("play --lesson FILE takes no scenario: the file is the lesson (got %s)", strings.Join(pos, " "))}
		}
		if s, err = readLesson(*lessonFile); err != nil {
			return 0, err
		}
	case len(pos) != 1:
		return 0, errUsage{errors.New(text.Newf("play needs one scenario; valid: %s", "play 需要一个场景；可选：%s",
			strings.Join(scenarios.IDs(), ", ")).In(*lang))}
	default:
		if s, err = scenarios.Lookup(pos[0]); err != nil {
			return 0, errUsage{unknown(*lang, err, "未知的场景 %q；可选：%s", pos[0], scenarios.IDs())}
		}
	}
	if !isSet(fs, "impl") {
		*implName = s.Naive
	}
	impl, err := lockimpl.Lookup(*implName)
	if err != nil {
		return 0, errUsage{unknown(*lang, err, "未知的锁实现 %q；可选：%s", *implName, lockimpl.Names())}
	}
	target, err := rf.target(ctx)
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
	if errors.Is(err, sim.ErrEmbeddedOnly) {
		return 0, errUsage{fmt.Errorf("%s × %s brings the failed primary back as a replica, which would wipe the first server: it runs on embedded servers only (drop --redis)", s.ID, impl.Name)}
	}
	if err != nil {
		return 0, err
	}
	if err := render(stdout, tr, *format, *lang); err != nil {
		return 0, err
	}
	return exitOK, unreliable(tr, target, *lang)
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
	}
	return report.Timeline(w, tr, lang)
}

func cmdCheck(ctx context.Context, args []string, stdout io.Writer) (code int, err error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	rf := addRealFlags(fs)
	lang := langFlag(fs)
	asJSON := fs.Bool("json", false, "print the results as JSON")
	junit := fs.String("junit", "", "also write the results as JUnit XML to this file")
	lessonsDir := fs.String("lessons", "", "check the lesson files in this directory instead of the built-in lessons")
	implList := fs.String("impl", "", "only these implementations: NAME[,NAME...]")
	scenarioList := fs.String("scenario", "", "only these lessons: ID[,ID...]")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("check takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	lessons := scenarios.All()
	if *lessonsDir != "" {
		if lessons, err = readLessonDir(*lessonsDir); err != nil {
			return 0, err
		}
	}
	if lessons, err = pickLessons(lessons, *scenarioList); err != nil {
		return 0, err
	}
	impls, err := pickImpls(*implList)
	if err != nil {
		return 0, err
	}
	target, err := rf.target(ctx)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	var results []scenarios.Result
	if target != nil {
		results, err = scenarios.CheckCellsOn(ctx, target, lessons, impls, realParallel)
	} else {
		results, err = scenarios.CheckCells(lessons, impls)
	}
	if err != nil {
		return 0, err
	}
	if *asJSON {
		err = report.JSON(stdout, results)
	} else {
		err = report.Matrix(stdout, results, *lang)
	}
	if err != nil {
		return 0, err
	}
	if *junit != "" {
		if err := writeFile(*junit, func(w io.Writer) error { return report.JUnit(w, results) }); err != nil {
			return 0, err
		}
	}
	code = exitOK
	errored := 0
	for _, r := range results {
		if r.Error != "" {
			errored++
		} else if !r.Pass {
			code = exitUnmet
		}
	}
	if errored > 0 {
		// The table is out, with every cell that ran; the ones that could
		// not are a failed run, not an unmet expectation.
		return 0, fmt.Errorf("%d of %d cells could not run (ERROR above)", errored, len(results))
	}
	return code, nil
}
