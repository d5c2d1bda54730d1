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

	"lockstep/lockimpl"
	"lockstep/report"
	"lockstep/scenarios"
)

// Exit codes.
const (
	exitOK    = 0
	exitUnmet = 1 // check: some cell differs from its expectation
	exitUsage = 2 // bad input (unknown names, bad flags) or a run that could not complete
)

const usage = `lockstep — Redis distributed locks, broken on purpose, step by step

usage:
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

// errUsage marks errors that are the user's input, not a failed run.
type errUsage struct{ error }

func (e errUsage) Unwrap() error { return e.error }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// The terminal UI is not here yet: say what there is.
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	var code int
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "list":
		code, err = cmdList(rest, stdout)
	case "play":
		code, err = cmdPlay(rest, stdout)
	case "check":
		code, err = cmdCheck(rest, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = errUsage{fmt.Errorf("unknown command %q; valid: list, play, check, help", cmd)}
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
