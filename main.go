// Command lockstep teaches Redis distributed locks by breaking them on
// purpose: it plays scripted timelines of the classic lock bugs against real
// lock implementations and shows the exact step where an invariant breaks.
package main

//go:generate go run . docs docs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
  lockstep list                       the failure modes and the lock implementations
  lockstep play SCENARIO [--impl NAME] [--format text|md|mermaid|json]
                                      play one failure mode as a text timeline
                                      (default impl: the naive one it is about)
  lockstep check [--json] [--junit FILE]
                                      run every failure mode against every
                                      implementation; exit 1 if any result
                                      differs from the expectation matrix
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

exit codes: 0 ok, 1 unmet expectations, 2 bad input or a run that failed
`

// quiet drops go-redis's own log lines ("failed to dial …"); lockstep reports
// every error itself, naming the address.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func main() {
	redis.SetLogger(quiet{})
	// Ctrl-C stops a run on real servers; its keys are removed on the way out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runCtx(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// isTerminal says whether w is a terminal the TUI can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}

// realParallel is how many cells check runs at once on real servers: they
// mostly wait for leases to run out, but each must keep up with the clock.
const realParallel = 4

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
	fs.DurationVar(&r.second, "time-scale", realredis.DefaultSecond, "on real servers, how long one scenario second lasts")
	return r
}

// target connects to the real servers, if any were given.
func (r *realFlags) target(ctx context.Context) (*sim.Target, error) {
	if r.redis == "" {
		if r.replica != "" || r.disposable {
			return nil, errUsage{errors.New("--replica and --disposable go with --redis")}
		}
		return nil, nil
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
var commands = []string{"list", "play", "check", "explore", "docs", "help"}

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
		fmt.Fprintln(stderr, "lockstep:", err)
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

// writeFile writes a report to path, all or nothing.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".lockstep-*")
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

// say picks the message for the user's language.
func say(lang, en, zh string) string {
	if lang == "zh" {
		return zh
	}
	return en
}

// unknown is err about an unknown name, in Chinese when lang is zh.
func unknown(lang string, err error, zh, name string, valid []string) error {
	if lang != "zh" {
		return err
	}
	return fmt.Errorf(zh, name, strings.Join(valid, ", "))
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
func cmdTUI(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("lockstep", flag.ContinueOnError)
	rf := addRealFlags(fs)
	var opts tui.Options
	fs.StringVar(&opts.Lang, "lang", "en", "narration language: en or zh")
	fs.StringVar(&opts.Scenario, "scenario", "", "open the player on this failure mode")
	fs.StringVar(&opts.Impl, "impl", "", "and this implementation (default: the scenario's naive one)")
	fs.BoolVar(&opts.Autoplay, "autoplay", false, "start playing at once")
	fs.Float64Var(&opts.Speed, "speed", 2, "autoplay speed in steps per second")
	traceFile := fs.String("trace", "", "open the player on a saved trace (play --format json, explore --out)")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pos) > 0 {
		if slices.Contains(commands, pos[0]) {
			return 0, errUsage{fmt.Errorf("flags go after the command: lockstep %s %s", pos[0], strings.Join(args[:len(args)-len(pos)], " "))}
		}
		return 0, errUsage{fmt.Errorf("unknown command %q; valid: %s", pos[0], strings.Join(commands, ", "))}
	}
	if err := opts.Check(); err != nil {
		return 0, errUsage{err}
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
	if !isTerminal(stdout) {
		fmt.Fprint(stdout, usage)
		return exitOK, nil
	}
	if target == nil {
		return exitOK, tui.Run(opts, os.Stdin, stdout)
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
	err = tui.Run(opts, os.Stdin, stdout)
	mu.Lock()
	done = true
	mu.Unlock()
	cancel()
	running.Wait()
	return exitOK, err
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

func cmdPlay(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	rf := addRealFlags(fs)
	lang := langFlag(fs)
	implName := fs.String("impl", "", "lock implementation (default: the scenario's naive one)")
	format := fs.String("format", "text", "output format: text, md, mermaid or json")
	traceFile := fs.String("trace", "", "play a trace file (play --format json, explore --out) instead of a scenario")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	if !slices.Contains(formats, *format) {
		return 0, errUsage{fmt.Errorf(say(*lang, "unknown format %q; valid: %s", "未知的格式 %q；可选：%s"),
			*format, strings.Join(formats, ", "))}
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
	if len(pos) != 1 {
		return 0, errUsage{fmt.Errorf(say(*lang, "play needs one scenario; valid: %s", "play 需要一个场景；可选：%s"),
			strings.Join(scenarios.IDs(), ", "))}
	}
	s, err := scenarios.Lookup(pos[0])
	if err != nil {
		return 0, errUsage{unknown(*lang, err, "未知的场景 %q；可选：%s", pos[0], scenarios.IDs())}
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
	return exitOK, render(stdout, tr, *format, *lang)
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

func cmdCheck(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	rf := addRealFlags(fs)
	lang := langFlag(fs)
	asJSON := fs.Bool("json", false, "print the results as JSON")
	junit := fs.String("junit", "", "also write the results as JUnit XML to this file")
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
	target, err := rf.target(ctx)
	if err != nil {
		return 0, err
	}
	var results []scenarios.Result
	if target != nil {
		results, err = scenarios.CheckOn(ctx, target, realParallel)
	} else {
		results, err = scenarios.Check()
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
	for _, r := range results {
		if !r.Pass {
			return exitUnmet, nil
		}
	}
	return exitOK, nil
}
