package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/tui"
)

// realServerFlags are the flags that point a run at real servers; every
// command that can run on them lists them in its help (issue #15: they
// appeared in no help at all).
var realServerFlags = []string{"--redis", "--replica", "--disposable", "--time-scale"}

// Each command has help of its own, on stdout with exit 0, however it is
// asked for: its usage line, its flags (the real-server ones where they
// apply) and the exit codes, in 80 columns.
func TestCommandHelp(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		want      []string
		real      bool // the command runs on real servers
		overview  bool // lockstep's own help: every command
		notWanted []string
	}{
		{"lockstep --help", []string{"--help"},
			[]string{"lockstep play", "lockstep check", "lockstep bench --redis", "--scenario", "--autoplay", "--speed", "--course",
				"--step N", "--stop-at-violation", "--no-spoilers", "--version"}, true, true, nil},
		{"play --help", []string{"play", "--help"},
			[]string{"lockstep play SCENARIO", "--impl NAME", "--format FORMAT", "--lesson FILE", "--trace FILE", "--lang",
				"--from N", "--to M"}, true, false, nil},
		{"play -h", []string{"play", "-h"}, []string{"lockstep play SCENARIO", "--impl NAME"}, true, false, nil},
		{"play -help", []string{"play", "-help"}, []string{"lockstep play SCENARIO"}, true, false, nil},
		{"help play", []string{"help", "play"}, []string{"lockstep play SCENARIO", "--format FORMAT"}, true, false, nil},
		{"play with arguments and --help", []string{"play", "get-then-del", "--impl", "nope", "--help"},
			[]string{"lockstep play SCENARIO"}, true, false, nil},
		{"check --help", []string{"check", "--help"},
			[]string{"lockstep check", "--json", "--junit FILE", "--lessons DIR", "--scenario ID[,ID...]", "--impl NAME[,NAME...]"}, true, false, nil},
		{"help check", []string{"help", "check"}, []string{"lockstep check", "--junit FILE"}, true, false, nil},
		{"explore --help", []string{"explore", "--help"},
			[]string{"lockstep explore --impl NAME", "--faults LIST", "--depth N", "--timeout D", "--out DIR", "expiry, crash"}, false, false, nil},
		{"list --help", []string{"list", "--help"}, []string{"lockstep list", "--lang LANG"}, false, false, nil},
		{"lessons --help", []string{"lessons", "--help"}, []string{"lockstep lessons list | show ID"}, false, false, []string{"--lang"}},
		{"expect --help", []string{"expect", "--help"}, []string{"lockstep expect [--lessons DIR] [--write]", "--lessons DIR", "--write"}, false, false, []string{"--lang"}},
		{"docs --help", []string{"docs", "--help"}, []string{"lockstep docs [--lang zh] DIR", "--lang LANG"}, false, false, nil},
		{"help help", []string{"help", "help"}, []string{"lockstep help [COMMAND]"}, false, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, tc.args...)
			want := append(tc.want, "exit codes: 0 ok, 1 unmet", "2 bad input")
			if tc.real {
				want = append(want, realServerFlags...)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("help lacks %q:\n%s", w, out)
				}
			}
			notWanted := tc.notWanted
			if !tc.real {
				notWanted = append(notWanted, realServerFlags...)
			}
			if !tc.overview {
				// A command's help is its own, not the overview.
				notWanted = append(notWanted, "lockstep lessons list | show ID     the built-in")
			}
			for _, w := range notWanted {
				if strings.Contains(out, w) {
					t.Errorf("help has %q:\n%s", w, out)
				}
			}
			for line := range strings.Lines(out) {
				if n := ansi.StringWidth(strings.TrimSuffix(line, "\n")); n > 80 {
					t.Errorf("a help line of %d columns: %q", n, line)
				}
			}
		})
	}
}

// Flag mistakes are reported as typed, with the command whose help lists
// the flags, and a near miss names the flag that was likely meant.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "get-then-del", "--imp", "uuid-lua"}, "lockstep: unknown flag: --imp; did you mean --impl? (lockstep play --help lists its flags)\n"},
		{[]string{"play", "get-then-del", "--imp=uuid-lua"}, "lockstep: unknown flag: --imp; did you mean --impl? (lockstep play --help lists its flags)\n"},
		{[]string{"play", "get-then-del", "-verbose"}, "lockstep: unknown flag: -verbose (lockstep play --help lists its flags)\n"},
		{[]string{"check", "--jsno"}, "lockstep: unknown flag: --jsno; did you mean --json? (lockstep check --help lists its flags)\n"},
		{[]string{"--scenaro", "gc-pause"}, "lockstep: unknown flag: --scenaro; did you mean --scenario? (lockstep --help lists its flags)\n"},
		{[]string{"check", "--json=maybe"}, "lockstep: invalid boolean value \"maybe\" for --json: want true or false (lockstep check --help lists its flags)\n"},
		{[]string{"explore", "--impl", "setnx", "--depth", "ten"}, "lockstep: invalid value \"ten\" for --depth: want a whole number (lockstep explore --help lists its flags)\n"},
		{[]string{"play", "get-then-del", "--impl"}, "lockstep: flag needs an argument: --impl (lockstep play --help lists its flags)\n"},
		{[]string{"explore", "--impl", "redlock", "--nodes", "4"}, "lockstep: --nodes must be 3 or 5, not 4\n"},
		{[]string{"explore", "--impl", "uuid-lua", "--nodes", "5"}, "lockstep: --nodes is for a lock on several servers (redlock, redlock-no-validity, redlock-fenced, redsync-redlock); uuid-lua runs on one\n"},
		// Issue #28 item 16: a step the lesson does not have is an error, as
		// play's --from is, and so is a step with nothing to open.
		{[]string{"--scenario", "gc-pause", "--step", "999"}, "lockstep: --step 999 out of range: gc-pause × uuid-lua-watchdog has steps 0 to 33\n"},
		{[]string{"--scenario", "get-then-del", "--impl", "uuid-lua", "--step", "999"}, "lockstep: --step 999 out of range: get-then-del × uuid-lua has steps 0 to 45\n"},
		{[]string{"--step", "3"}, "lockstep: --step N opens a lesson at step N: it goes with --scenario ID or --trace FILE\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != exitUsage || stdout != "" || stderr != tc.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}

// A near-miss name says which name was likely meant, wherever a name is
// looked up, and still lists the valid ones.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "get-then-dle"}, `unknown scenario "get-then-dle"; did you mean get-then-del? valid: oversell,`},
		{[]string{"play", "Get-Then-Del"}, "did you mean get-then-del?"},
		{[]string{"play", "get-then"}, "did you mean get-then-del?"},
		{[]string{"play", "get-then-del", "--impl", "uuid-lau"}, `unknown implementation "uuid-lau"; did you mean uuid-lua? valid: no-lock,`},
		{[]string{"play", "get-then-del", "--format", "mermiad"}, `unknown format "mermiad"; did you mean mermaid? valid: text, md, mermaid, json`},
		{[]string{"play", "get-then-dle", "--lang", "zh"}, `未知的场景 "get-then-dle"；是不是 get-then-del？可选：oversell,`},
		{[]string{"check", "--scenario", "get-then-del,gc-paus"}, `unknown scenario "gc-paus"; did you mean gc-pause? valid:`},
		{[]string{"check", "--impl", "uuid-lua,fencd"}, `unknown implementation "fencd"; did you mean fenced? valid:`},
		{[]string{"explore", "--impl", "uuid-get-dl"}, `unknown implementation "uuid-get-dl"; did you mean uuid-get-del? valid:`},
		{[]string{"explore", "--impl", "setnx", "--faults", "expiry,pasue"}, `unknown fault "pasue"; did you mean pause? valid: expiry, crash, pause, failover, restart`},
		{[]string{"--scenario", "gc-paus"}, `unknown scenario "gc-paus"; did you mean gc-pause? valid:`},
		{[]string{"--scenario", "gc-pause", "--impl", "fencd"}, `unknown implementation "fencd"; did you mean fenced? valid:`},
		{[]string{"lessons", "show", "get-then-dle"}, `unknown scenario "get-then-dle"; did you mean get-then-del? valid:`},
		{[]string{"list", "--lang", "ZH"}, `unknown language "ZH"; did you mean zh? valid: en, zh`},
		{[]string{"pley", "get-then-del"}, `unknown command "pley"; did you mean play? valid: list, play,`},
		{[]string{"help", "chek"}, `unknown command "chek"; did you mean check? valid:`},
		// Issue #28 item 15: help of a command that does not exist is an
		// error, not lockstep's help with exit 0.
		{[]string{"nosuch", "--help"}, `unknown command "nosuch"; valid: list, play,`},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"; valid: bash, fish, powershell, zsh`},
		{[]string{"completion", "bsh"}, `unknown shell "bsh"; did you mean bash or zsh?`},
		// Issue #28 item 13: bench is a command like the others.
		{[]string{"benc"}, `unknown command "benc"; did you mean bench? valid: list, play, check, explore, bench, clean, monitor, lessons,`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// suggest guesses only from near misses: a name far from every valid one,
// or close to too many, gets no guess.
func TestSuggest(t *testing.T) {
	valid := []string{"uuid-lua", "uuid-lua-watchdog", "uuid-lua-wait", "uuid-get-del", "setnx", "set-nx-ex", "setnx-expire"}
	for _, tc := range []struct {
		name string
		want string
	}{
		{"uuid-lau", "uuid-lua"},
		{"setnx-ex", "set-nx-ex"},
		{"stenx", "setnx"},
		{"uuid-lua-wachdog", "uuid-lua-watchdog"},
		{"no-such-lock", ""},
		{"x", ""},
		{"", ""},
		{"uuid-l", "uuid-lua"},
		{"uuid-", ""}, // the start of four names
		{"uuid-get", "uuid-get-del"},
	} {
		if got := strings.Join(suggest(tc.name, valid), " "); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// lockstep --version prints the version the build recorded, never a
// number written by hand.
func TestVersion(t *testing.T) {
	want := "lockstep version " + version() + "\n"
	for _, args := range [][]string{{"--version"}, {"-version"}, {"-v"}} {
		if got := mustRun(t, args...); got != want {
			t.Errorf("lockstep %s = %q, want %q", args[0], got, want)
		}
	}
	if !strings.Contains(mustRun(t, "--help"), "--version") {
		t.Error("lockstep --help does not list --version")
	}
}

// complete runs cobra's hidden __complete command, as a shell's completion
// script does, and returns the candidates (without their descriptions) and
// the directive.
func complete(t *testing.T, args ...string) (names []string, directive string) {
	t.Helper()
	code, stdout, _ := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != exitOK {
		t.Fatalf("lockstep __complete %q: exit %d", args, code)
	}
	for line := range strings.Lines(stdout) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, ":") {
			return names, line
		}
		name, _, _ := strings.Cut(line, "\t")
		names = append(names, name)
	}
	t.Fatalf("lockstep __complete %q: no directive in %q", args, stdout)
	return nil, ""
}

// Lesson ids and implementation names complete as arguments and as flag
// values, comma lists included; each candidate comes with its summary.
func TestCompletion(t *testing.T) {
	dir, _ := myLesson(t, nil)
	const noFiles, list = ":4", ":6" // ShellCompDirectiveNoFileComp, with NoSpace
	for _, tc := range []struct {
		args      []string
		want      string // the candidates, space-separated
		directive string
	}{
		{[]string{"play", "get-"}, "get-then-del", noFiles},
		{[]string{"play", "redlock-r"}, "redlock-restart", noFiles},
		{[]string{"play", "get-then-del", ""}, "", noFiles},
		{[]string{"play", "x", "--impl", "uuid-l"}, namesWith("uuid-l"), noFiles},
		{[]string{"play", "get-then-del", "--format", "m"}, "md mermaid", noFiles},
		{[]string{"play", "get-then-del", "--lang", ""}, "en zh", noFiles},
		{[]string{"check", "--impl", "uuid-lua,fen"}, "uuid-lua,fenced-no-tag uuid-lua,fenced", list},
		{[]string{"check", "--scenario", "get-then-del,g"}, "get-then-del,gc-pause get-then-del,give-up get-then-del,granularity get-then-del,guard-version get-then-del,guard-in-stock get-then-del,guard-relative get-then-del,guard-unique get-then-del,guard-token", list},
		{[]string{"check", "--lessons", dir, "--scenario", "my-"}, "my-get-then-del", list},
		{[]string{"explore", "--impl", "set"}, namesWith("set"), noFiles},
		{[]string{"explore", "--impl", "setnx", "--faults", "expiry,p"}, "expiry,pause expiry,partition", list},
		{[]string{"explore", "--impl", "setnx", "--clients", ""}, "2 3", noFiles},
		{[]string{"explore", "--impl", "redlock", "--nodes", ""}, "3 5", noFiles},
		{[]string{"--scenario", "gc"}, "gc-pause", noFiles},
		{[]string{"--lessons", dir, "--scenario", "my"}, "my-get-then-del", noFiles},
		{[]string{"--impl", "fen"}, namesWith("fen"), noFiles},
		{[]string{"--lang", "z"}, "zh", noFiles},
		{[]string{"lessons", ""}, "list show", noFiles},
		{[]string{"lessons", "show", "get"}, "get-then-del", noFiles},
		{[]string{"help", "pl"}, "play", noFiles},
		{[]string{"pl"}, "play", noFiles},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			names, directive := complete(t, tc.args...)
			if got := strings.Join(names, " "); got != tc.want || directive != tc.directive {
				t.Errorf("candidates %q, directive %s; want %q, %s", got, directive, tc.want, tc.directive)
			}
		})
	}
	// Descriptions: the lesson's title beside its id.
	_, stdout, _ := runCLI(t, "__complete", "play", "get-then-d")
	if !strings.HasPrefix(stdout, "get-then-del\tGET-then-DEL") {
		t.Errorf("no title beside the id: %q", stdout)
	}
}

// lockstep completion bash|zsh|fish writes a script that asks lockstep
// __complete for the candidates.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out := mustRun(t, "completion", shell)
		if !strings.Contains(out, "lockstep __complete") && !strings.Contains(out, "__complete") {
			t.Errorf("completion %s does not call __complete:\n%.300s", shell, out)
		}
		if !strings.Contains(out, shell) {
			t.Errorf("completion %s does not look like a %s script:\n%.300s", shell, shell, out)
		}
	}
	if out := mustRun(t, "completion", "--help"); !strings.Contains(out, "bash") || !strings.Contains(out, "zsh") || !strings.Contains(out, "fish") {
		t.Errorf("completion --help does not name the shells:\n%s", out)
	}
}

// Counts printed by the command line agree with their noun: "1 move", not
// "1 moves" (issue #15).
func TestPlurals(t *testing.T) {
	code, out, stderr := runCLI(t, "explore", "--impl", "setnx", "--depth", "1")
	if code != exitOK {
		t.Fatalf("explore --depth 1: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"2 clients, 1 acquire attempt each", "every schedule of up to 1 move explored", "no schedule of up to 1 move breaks it"} {
		if !strings.Contains(out, want) {
			t.Errorf("explore --depth 1 lacks %q:\n%s", want, out)
		}
	}
	if out := mustRun(t, "check", "--impl", "uuid-lua", "--scenario", "get-then-del"); !strings.HasSuffix(out, "\nthe 1 cell meets its expectation\n") {
		t.Errorf("check of one cell:\n%s", out)
	}
	// A lesson of one's own that does not name uuid-lua in its expect
	// block: one cell without an expectation.
	dir, _ := myLesson(t, func(src string) string { return strings.Replace(src, "    uuid-lua ", "    # uuid-lua ", 1) })
	out = mustRun(t, "check", "--lessons", dir, "--impl", "uuid-lua,setnx")
	for _, want := range []string{"* 1 cell has no expectation (its lesson does not name the implementation)", "1 cell meets its expectation, 0 skipped, 1 has none"} {
		if !strings.Contains(out, want) {
			t.Errorf("check with one unjudged cell lacks %q:\n%s", want, out)
		}
	}
	for _, out := range []string{out, mustRun(t, "explore", "--impl", "setnx", "--depth", "1")} {
		for _, wrong := range []string{" 1 moves", " 1 cells", "attempt(s)", " 1 distinct states", "1 have"} {
			if strings.Contains(out, wrong) {
				t.Errorf("%q in:\n%s", wrong, out)
			}
		}
	}
}

// The teacher's flags reach the TUI's options: --step N (numbered from 0,
// as play numbers steps), --stop-at-violation, --no-spoilers; a negative
// step is refused.
func TestTeacherFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want tui.Options
	}{
		{[]string{"--scenario", "gc-pause"}, tui.Options{Scenario: "gc-pause"}},
		{[]string{"--scenario", "gc-pause", "--step", "12", "--stop-at-violation", "--no-spoilers"},
			tui.Options{Scenario: "gc-pause", Step: 12, StopAtViolation: true, NoSpoilers: true}},
		{[]string{"--scenario", "gc-pause", "-step=0", "-no-spoilers"}, tui.Options{Scenario: "gc-pause", NoSpoilers: true}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			a := &cli{stdout: io.Discard}
			root := a.newRoot()
			if err := root.ParseFlags(longFlags(root, tc.args)); err != nil {
				t.Fatal(err)
			}
			opts, err := a.tui.options(context.Background(), root.Flags())
			if err != nil {
				t.Fatal(err)
			}
			got := [4]any{opts.Scenario, opts.Step, opts.StopAtViolation, opts.NoSpoilers}
			if want := [4]any{tc.want.Scenario, tc.want.Step, tc.want.StopAtViolation, tc.want.NoSpoilers}; got != want {
				t.Errorf("scenario, step, stop at violation, no spoilers = %v, want %v", got, want)
			}
			// Without a terminal: the usage, exit 0.
			mustRun(t, tc.args...)
		})
	}
	code, _, stderr := runCLI(t, "--scenario", "gc-pause", "--step", "-1")
	if want := "lockstep: --step must be 0 or more (steps are numbered from 0, as play prints them), not -1\n"; code != exitUsage || stderr != want {
		t.Errorf("--step -1: exit %d, %q; want 2, %q", code, stderr, want)
	}
	help := mustRun(t, "--help")
	for _, flag := range []string{"--step N", "--stop-at-violation", "--no-spoilers"} {
		if !strings.Contains(help, flag) {
			t.Errorf("lockstep --help does not list %s", flag)
		}
	}
}

// play --format mermaid --from N --to M draws steps N to M of the timeline
// only, for a slide; a range the trace does not have names the one it has.
func TestMermaidSteps(t *testing.T) {
	// get-then-del × uuid-get-del: step 23 is A's GET, 33 the ownership
	// violation, 37 the mutex violation.
	tr := decodeJSON[playJSON](t, mustRun(t, "play", "get-then-del", "--format", "json"))
	if e := tr.Events[23]; e.Kind != "command" || !strings.HasPrefix(e.Command, "GET ") {
		t.Fatalf("step 23 is %+v, not A's GET", e)
	}
	if tr.Events[33].Invariant != "ownership" || tr.Events[37].Invariant != "mutex" {
		t.Fatalf("steps 33 and 37 are %+v and %+v", tr.Events[33], tr.Events[37])
	}
	out := mustRun(t, "play", "get-then-del", "--format", "mermaid", "--from", "23", "--to", "33")
	for _, want := range []string{"sequenceDiagram\n", "%% steps 23 to 33 of get-then-del × uuid-get-del (0 to 49)\n",
		"participant S as stock\n", "    Note over A,S: t = 29s\n    A->>R1: GET lock:product:1001\n", "✗ ownership"} {
		if !strings.Contains(out, want) {
			t.Errorf("steps 23 to 33 lack %q:\n%s", want, out)
		}
	}
	for _, notWanted := range []string{"t = 0s", "works 29s", "✗ mutex", "✗ resource"} {
		if strings.Contains(out, notWanted) {
			t.Errorf("steps 23 to 33 have %q:\n%s", notWanted, out)
		}
	}
	full := mustRun(t, "play", "get-then-del", "--format", "mermaid")
	if all := mustRun(t, "play", "get-then-del", "--format", "mermaid", "--from", "0", "--to", "49"); all != full {
		t.Errorf("--from 0 --to 49 differs from the whole diagram:\n%s", all)
	}
	if tail := mustRun(t, "play", "get-then-del", "--format", "mermaid", "--from", "37"); !strings.Contains(tail, "✗ mutex") || strings.Contains(tail, "✗ ownership") {
		t.Errorf("--from 37:\n%s", tail)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "23", "--to", "99"}, "--to 99 out of range: get-then-del × uuid-get-del has steps 0 to 49"},
		{[]string{"--from", "60"}, "--from 60 out of range: get-then-del × uuid-get-del has steps 0 to 49"},
		{[]string{"--from", "33", "--to", "23"}, "--from 33 comes after --to 23"},
		{[]string{"--from", "-1"}, "--from and --to are steps, numbered from 0: not -1"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"play", "get-then-del", "--format", "mermaid"}, tc.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "play", "get-then-del", "--from", "2"); code != exitUsage || !strings.Contains(stderr, "--from and --to go with --format mermaid, not --format text") {
		t.Errorf("--from with text: exit %d, %q", code, stderr)
	}
}

// A lock in another language on a machine without its runtime, and a lock
// of one's own whose file is not there, are one error each, before any cell
// runs: what to install, which file.
func TestLocksInOtherLanguagesNeedTheirParts(t *testing.T) {
	t.Setenv("LOCKSTEP_PYTHON", "/nonexistent/python3")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--impl", "py-redis-lock"}, "lockstep: py-redis-lock: LOCKSTEP_PYTHON=/nonexistent/python3: /nonexistent/python3: not found (a Python 3 with redis-py: apt-get install python3-redis)\n"},
		{[]string{"play", "setnx-no-ex", "--impl", "py-redis-lock-timeout"}, "lockstep: py-redis-lock-timeout: LOCKSTEP_PYTHON=/nonexistent/python3: /nonexistent/python3: not found (a Python 3 with redis-py: apt-get install python3-redis)\n"},
		{[]string{"check", "--impl", "nosuch.py"}, "lockstep: a lock of your own: open nosuch.py: no such file or directory\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != exitUsage || stdout != "" || stderr != tc.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}
