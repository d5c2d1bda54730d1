// Command lockstep teaches Redis distributed locks by breaking them on
// purpose: it plays scripted timelines of the classic lock bugs against real
// lock implementations and shows the exact step where an invariant breaks.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"

	"lockstep/lockimpl"
	"lockstep/report"
	"lockstep/scenarios"
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
                                      implementation, step through it, compare
  lockstep list                       the failure modes and the lock implementations
  lockstep play SCENARIO [--impl NAME] [--format text|json]
                                      play one failure mode as a text timeline
                                      (default impl: the naive one it is about)
  lockstep check [--json]             run every failure mode against every
                                      implementation; exit 1 if any result
                                      differs from the expectation matrix
  lockstep help                       this text

flags, after the command:
  --lang en|zh                        narration language (default en)

exit codes: 0 ok, 1 unmet expectations, 2 bad input or a run that failed
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// isTerminal says whether w is a terminal the TUI can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}

// commands are the subcommands.
var commands = []string{"list", "play", "check", "help"}

// errUsage marks errors that are the user's input, not a failed run.
type errUsage struct{ error }

func (e errUsage) Unwrap() error { return e.error }

func run(args []string, stdout, stderr io.Writer) int {
	var code int
	var err error
	cmd, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "":
		code, err = cmdTUI(rest, stdout)
	case "list":
		code, err = cmdList(rest, stdout)
	case "play":
		code, err = cmdPlay(rest, stdout)
	case "check":
		code, err = cmdCheck(rest, stdout)
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
func cmdTUI(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("lockstep", flag.ContinueOnError)
	var opts tui.Options
	fs.StringVar(&opts.Lang, "lang", "en", "narration language: en or zh")
	fs.StringVar(&opts.Scenario, "scenario", "", "open the player on this failure mode")
	fs.StringVar(&opts.Impl, "impl", "", "and this implementation (default: the scenario's naive one)")
	fs.BoolVar(&opts.Autoplay, "autoplay", false, "start playing at once")
	fs.Float64Var(&opts.Speed, "speed", 2, "autoplay speed in steps per second")
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
	if !isTerminal(stdout) {
		fmt.Fprint(stdout, usage)
		return exitOK, nil
	}
	return exitOK, tui.Run(opts, os.Stdin, stdout)
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

func cmdPlay(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	lang := langFlag(fs)
	implName := fs.String("impl", "", "lock implementation (default: the scenario's naive one)")
	format := fs.String("format", "text", "output format: text or json")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, errUsage{fmt.Errorf("play needs one scenario; valid: %s", strings.Join(scenarios.IDs(), ", "))}
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	if *format != "text" && *format != "json" {
		return 0, errUsage{fmt.Errorf("unknown format %q; valid: text, json", *format)}
	}
	s, err := scenarios.Lookup(pos[0])
	if err != nil {
		return 0, errUsage{err}
	}
	if !isSet(fs, "impl") {
		*implName = s.Naive
	}
	impl, err := lockimpl.Lookup(*implName)
	if err != nil {
		return 0, errUsage{err}
	}
	tr, err := s.Run(impl)
	if err != nil {
		return 0, err
	}
	if *format == "json" {
		return exitOK, report.JSON(stdout, tr)
	}
	return exitOK, report.Timeline(stdout, tr, *lang)
}

func cmdCheck(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	lang := langFlag(fs)
	asJSON := fs.Bool("json", false, "print the results as JSON")
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
	results, err := scenarios.Check()
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
	for _, r := range results {
		if !r.Pass {
			return exitUnmet, nil
		}
	}
	return exitOK, nil
}
