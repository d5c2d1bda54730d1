package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lockstep/lockimpl"
	"lockstep/report"
	"lockstep/scenarios/explore"
	"lockstep/scenarios/sim"
)

// cmdExplore searches an implementation's schedules for counterexamples.
func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	lang := langFlag(fs)
	implName := fs.String("impl", "", "lock implementation to search")
	clients := fs.Int("clients", 2, "clients: 2 or 3")
	attempts := fs.Int("attempts", 1, "acquire attempts per client, every TTL/2 (1: no retry)")
	faultList := fs.String("faults", "expiry", "allowed faults, comma-separated: "+faultNames())
	depth := fs.Int("depth", explore.DefaultDepth, "longest schedule to try, in moves")
	timeout := fs.Duration("timeout", time.Minute, "stop searching after this long (0: no limit)")
	out := fs.String("out", "", "write each counterexample's trace to DIR/<impl>-<invariant>.json")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return 0, err
	}
	if err := checkLang(*lang); err != nil {
		return 0, err
	}
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("explore takes no arguments, got %q; use --impl NAME", pos)}
	}
	if *implName == "" {
		return 0, errUsage{fmt.Errorf("explore needs --impl NAME; valid: %s", strings.Join(lockimpl.Names(), ", "))}
	}
	impl, err := lockimpl.Lookup(*implName)
	if err != nil {
		return 0, errUsage{unknown(*lang, err, "未知的锁实现 %q；可选：%s", *implName, lockimpl.Names())}
	}
	var faults []sim.Fault
	for f := range strings.SplitSeq(*faultList, ",") {
		if f = strings.TrimSpace(f); f != "" {
			faults = append(faults, sim.Fault(f))
		}
	}
	if faults == nil {
		faults = []sim.Fault{}
	}
	// Options treat zero as "the default"; on the command line a zero is a
	// mistake, not a request for the default.
	if *depth < 1 {
		return 0, errUsage{fmt.Errorf("--depth must be at least 1, not %d", *depth)}
	}
	if *timeout < 0 {
		return 0, errUsage{fmt.Errorf("--timeout must be 0 (no limit) or more, not %s", *timeout)}
	}
	opts := explore.Options{Clients: *clients, Attempts: *attempts, Faults: faults, Depth: *depth, Timeout: *timeout}
	if err := opts.Validate(); err != nil {
		return 0, errUsage{err}
	}
	if isTerminal(stderr) {
		opts.Progress = func(p explore.Progress) {
			fmt.Fprintf(stderr, "\r\033[Kdepth %d · %d states · %s", p.Depth, p.States, p.Elapsed.Round(100*time.Millisecond))
		}
	}
	res, err := explore.Search(ctx, impl, opts)
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return 0, err
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return 0, err
		}
		for _, f := range res.Found {
			path := filepath.Join(*out, impl.Name+"-"+f.Invariant+".json")
			if err := writeFile(path, func(w io.Writer) error { return report.JSON(w, f.Trace) }); err != nil {
				return 0, err
			}
		}
	}
	code := exitOK
	if len(res.Found) > 0 {
		code = exitUnmet
	}
	if *asJSON {
		return code, report.JSON(stdout, exploreJSON(res))
	}
	return code, report.Explore(stdout, res, *lang)
}

func faultNames() string {
	names := make([]string, len(sim.Faults))
	for i, f := range sim.Faults {
		names[i] = string(f)
	}
	return strings.Join(names, ",")
}

// exploreJSON is a search result as explore --json prints it.
func exploreJSON(r explore.Result) any {
	type finding struct {
		Invariant string   `json:"invariant"`
		Moves     []string `json:"moves"`
		Step      int      `json:"step"`
		T         int64    `json:"t_ns"`
	}
	found := []finding{}
	for _, f := range r.Found {
		v := f.Trace.Verdict(f.Invariant)
		found = append(found, finding{f.Invariant, f.Trace.Schedule.Moves, v.Step, int64(v.T)})
	}
	return struct {
		Impl     string      `json:"impl"`
		Clients  int         `json:"clients"`
		Attempts int         `json:"attempts"`
		Faults   []sim.Fault `json:"faults"`
		Depth    int         `json:"depth"`
		Complete bool        `json:"complete"`
		TimedOut bool        `json:"timed_out"`
		States   int         `json:"states"`
		Found    []finding   `json:"found"`
	}{r.Impl, r.Options.Clients, r.Options.Attempts, r.Options.Faults, r.Depth, r.Complete, r.TimedOut, r.States, found}
}
