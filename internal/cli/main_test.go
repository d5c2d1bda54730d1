package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// runCLI runs the command line with args and returns the exit code and what
// it wrote to stdout and stderr.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// mustRun runs the command line, requires exit 0 and a silent stderr, and
// returns stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("lockstep %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), code, exitOK, stderr)
	}
	if stderr != "" {
		t.Fatalf("lockstep %s: unexpected stderr:\n%s", strings.Join(args, " "), stderr)
	}
	if stdout == "" {
		t.Fatalf("lockstep %s: empty stdout", strings.Join(args, " "))
	}
	return stdout
}

// sharedRuns keeps the output of command lines that read only what the
// binary holds (the whole matrix takes a second or two): tests that only read
// that output share one run. Tests of determinism run again, fresh.
var sharedRuns sync.Map // joined args → *sharedRun

type sharedRun struct {
	once sync.Once
	out  string
}

// mustRunShared is mustRun, run once per command line for the whole test binary.
func mustRunShared(t *testing.T, args ...string) string {
	t.Helper()
	v, _ := sharedRuns.LoadOrStore(strings.Join(args, "\x00"), &sharedRun{})
	r := v.(*sharedRun)
	r.once.Do(func() { r.out = mustRun(t, args...) })
	if r.out == "" {
		t.Fatalf("lockstep %s failed in an earlier test", strings.Join(args, " "))
	}
	return r.out
}

// wholeMatrix skips, under the race detector, a test that puts the whole
// matrix through the command line: package scenarios runs the matrix under
// it, and the plain run covers the command line.
func wholeMatrix(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("the whole matrix through the command line; run without -race")
	}
}

// decodeJSON decodes data into a T, failing the test if it is not valid JSON
// or has trailing garbage.
func decodeJSON[T any](t *testing.T, data string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("output is not JSON for %T: %v\n%s", v, err, data)
	}
	if dec.More() {
		t.Fatalf("trailing data after the JSON value:\n%s", data)
	}
	return v
}

// invariantMarks reads the verdict section of a play timeline (the lines
// after heading) into invariant → "✓" or "✗".
func invariantMarks(t *testing.T, out, heading string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(out, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no %q section in output:\n%s", heading, out)
	}
	marks := map[string]string{}
	for line := range strings.Lines(section) {
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("malformed verdict line %q", line)
		}
		id := f[0]
		if _, zh, ok := strings.Cut(id, "（"); ok {
			id = strings.TrimSuffix(zh, "）") // 互斥（mutex）
		}
		marks[id] = f[1]
	}
	return marks
}

// wantMarks is the verdict section expected when exactly broken break.
func wantMarks(broken []string) map[string]string {
	m := map[string]string{}
	for _, id := range invariant.IDs() {
		m[id] = "✓"
		if slices.Contains(broken, id) {
			m[id] = "✗"
		}
	}
	return m
}

func assertMarks(t *testing.T, got, want map[string]string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("invariant verdicts = %v, want %v", got, want)
	}
}

// lockstep's own help is the overview of every command; a command's help
// is its own (TestCommandHelp).
func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no arguments", nil},
		{"help", []string{"help"}},
		{"-h", []string{"-h"}},
		{"--help", []string{"--help"}},
		{"-help", []string{"-help"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, tc.args...)
			for _, want := range []string{"lockstep list", "lockstep play", "lockstep check", "lockstep help", "--lang", "exit codes"} {
				if !strings.Contains(out, want) {
					t.Errorf("usage does not mention %q:\n%s", want, out)
				}
			}
		})
	}
}

// entryLines counts, for each name, the entry lines of list (indented by
// two spaces; a summary below is indented further) whose first field is
// that name, and returns the entry lines.
func entryLines(out string) (map[string]int, []string) {
	n := map[string]int{}
	var entries []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			n[strings.Fields(line)[0]]++
			entries = append(entries, line)
		}
	}
	return n, entries
}

// list names each scenario with the implementation it opens with, and the
// implementations, each summary below its name, in 80 columns (issue #15:
// lines ran to 190 and did not say which implementation a lesson opens
// with).
func TestList(t *testing.T) {
	out := mustRun(t, "list")
	for _, heading := range []string{"scenarios (failure modes), each with the implementation it opens with:", "implementations:",
		"in other languages (name them with --impl; your own: --impl FILE.py or FILE.js):"} {
		if !strings.Contains(out, heading+"\n") {
			t.Errorf("list lacks heading %q:\n%s", heading, out)
		}
	}
	ids, names := scenarios.IDs(), lockimpl.KnownNames()
	if len(ids) == 0 || len(names) == 0 {
		t.Fatalf("an empty catalogue: %d scenarios, %d implementations", len(ids), len(names))
	}
	lines, entries := entryLines(out)
	for _, name := range slices.Concat(ids, names) {
		if lines[name] != 1 {
			t.Errorf("list has %d entry lines starting with %q, want 1", lines[name], name)
		}
	}
	if want := len(ids) + len(names); len(entries) != want {
		t.Errorf("list has %d entry lines, want %d:\n%s", len(entries), want, out)
	}
	for i, s := range scenarios.All() {
		if f := strings.Fields(entries[i]); len(f) != 2 || f[0] != s.ID || f[1] != s.Naive {
			t.Errorf("entry %q, want %s and its naive implementation %s", entries[i], s.ID, s.Naive)
		}
	}
	// Scenarios come first, in teaching order; implementations after, the
	// catalogue's, then those in other languages.
	for i, name := range slices.Concat(ids, names) {
		if f := strings.Fields(entries[i]); f[0] != name {
			t.Errorf("entry %d is %q, want %s", i, f[0], name)
		}
	}
	for line := range strings.Lines(out) {
		if n := ansi.StringWidth(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
}

func TestListChinese(t *testing.T) {
	out := mustRun(t, "list", "--lang", "zh")
	for _, want := range []string{"场景（故障模式），以及每个场景默认演示的锁实现：", "锁实现："} {
		if !strings.Contains(out, want) {
			t.Errorf("list --lang zh lacks %q:\n%s", want, out)
		}
	}
	for _, english := range []string{"scenarios (failure modes)", "implementations:"} {
		if strings.Contains(out, english) {
			t.Errorf("list --lang zh still has English heading %q", english)
		}
	}
	lines, _ := entryLines(out)
	for _, name := range slices.Concat(scenarios.IDs(), lockimpl.Names()) {
		if lines[name] != 1 {
			t.Errorf("list --lang zh has %d entry lines starting with %q, want 1", lines[name], name)
		}
	}
	for line := range strings.Lines(out) {
		if n := ansi.StringWidth(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
}

func TestPlayDefaultsToNaiveImpl(t *testing.T) {
	out := mustRun(t, "play", "get-then-del")
	if want := "get-then-del × uuid-get-del — "; !strings.HasPrefix(out, want) {
		t.Errorf("first line = %q, want prefix %q", strings.SplitN(out, "\n", 2)[0], want)
	}
	for _, want := range []string{
		"✗ OWNERSHIP: A deleted the lock that B wrote",
		"DEL lock:product:1001",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("play get-then-del lacks %q:\n%s", want, out)
		}
	}
	assertMarks(t, invariantMarks(t, out, "invariants:"), wantMarks([]string{invariant.Mutex, invariant.Ownership, invariant.Resource}))

	// The default is the same as naming the naive implementation.
	if explicit := mustRun(t, "play", "get-then-del", "--impl", "uuid-get-del"); explicit != out {
		t.Errorf("play get-then-del differs from play get-then-del --impl uuid-get-del")
	}
}

func TestPlayFixedImpl(t *testing.T) {
	out := mustRun(t, "play", "get-then-del", "--impl", "uuid-lua")
	if want := "get-then-del × uuid-lua — "; !strings.HasPrefix(out, want) {
		t.Errorf("first line = %q, want prefix %q", strings.SplitN(out, "\n", 2)[0], want)
	}
	if strings.Contains(out, "✗") {
		t.Errorf("uuid-lua breaks something in get-then-del:\n%s", out)
	}
	assertMarks(t, invariantMarks(t, out, "invariants:"), wantMarks(nil))
}

// TestPlayEveryScenario plays each failure mode with its default
// implementation: the header names the naive one, and the verdicts are the
// expectation matrix's, which is never empty for the naive implementation.
func TestPlayEveryScenario(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.ID, func(t *testing.T) {
			out := mustRun(t, "play", s.ID)
			if want := s.ID + " × " + s.Naive + " — " + s.Title.EN + "\n"; !strings.HasPrefix(out, want) {
				t.Errorf("first line = %q, want %q", strings.SplitN(out, "\n", 2)[0], want)
			}
			want := scenarios.Expected(s.ID, s.Naive)
			if len(want) == 0 && !s.Mitigation {
				t.Errorf("the naive implementation %s breaks nothing in %s", s.Naive, s.ID)
			}
			if s.Mitigation {
				for _, impl := range lockimpl.Names() {
					if impl == "no-lock" || impl == "local-mutex" {
						continue // no lock across processes: no mitigation helps
					}
					if exp := scenarios.Expected(s.ID, impl); len(exp) > 0 {
						t.Errorf("%s shows a mitigation, yet %s is expected to break %v", s.ID, impl, exp)
					}
				}
			}
			assertMarks(t, invariantMarks(t, out, "invariants:"), wantMarks(want))
		})
	}
}

func TestPlayFlagPosition(t *testing.T) {
	want := mustRun(t, "play", "get-then-del", "--impl", "uuid-lua", "--lang", "zh")
	tests := []struct {
		name string
		args []string
	}{
		{"flags after", []string{"play", "get-then-del", "--impl", "uuid-lua", "--lang", "zh"}},
		{"flags before", []string{"play", "--impl", "uuid-lua", "--lang", "zh", "get-then-del"}},
		{"flags around", []string{"play", "--lang", "zh", "get-then-del", "--impl", "uuid-lua"}},
		{"equals form", []string{"play", "--impl=uuid-lua", "get-then-del", "--lang=zh"}},
		{"single dash", []string{"play", "-impl", "uuid-lua", "get-then-del", "-lang", "zh"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustRun(t, tc.args...); got != want {
				t.Errorf("lockstep %s differs from the flags-after form:\n%s", strings.Join(tc.args, " "), got)
			}
		})
	}
}

// playJSON is the part of a trace's JSON that the tests look at.
type playJSON struct {
	Scenario string `json:"scenario"`
	Impl     string `json:"impl"`
	Events   []struct {
		Step      int    `json:"step"`
		Kind      string `json:"kind"`
		Command   string `json:"command"`
		Invariant string `json:"invariant"`
	} `json:"events"`
	Verdicts []struct {
		Invariant string `json:"invariant"`
		Broken    bool   `json:"broken"`
	} `json:"verdicts"`
}

func TestPlayJSON(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantImpl   string
		wantBroken []string
	}{
		{"naive", []string{"play", "get-then-del", "--format", "json"}, "uuid-get-del",
			[]string{invariant.Mutex, invariant.Ownership, invariant.Resource}},
		{"fixed, flag first", []string{"play", "--format=json", "--impl", "uuid-lua", "get-then-del"}, "uuid-lua", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, tc.args...)
			raw := decodeJSON[map[string]json.RawMessage](t, out)
			for _, key := range []string{"scenario", "impl", "events", "verdicts"} {
				if _, ok := raw[key]; !ok {
					t.Errorf("JSON lacks field %q", key)
				}
			}
			tr := decodeJSON[playJSON](t, out)
			if tr.Scenario != "get-then-del" || tr.Impl != tc.wantImpl {
				t.Errorf("scenario, impl = %q, %q, want %q, %q", tr.Scenario, tr.Impl, "get-then-del", tc.wantImpl)
			}
			if len(tr.Events) == 0 {
				t.Fatal("no events")
			}
			for i, e := range tr.Events {
				if e.Step != i {
					t.Errorf("event %d has step %d", i, e.Step)
				}
			}
			var broken, violated []string
			for _, v := range tr.Verdicts {
				if v.Broken {
					broken = append(broken, v.Invariant)
				}
			}
			for _, e := range tr.Events {
				if e.Kind == string(trace.KindViolation) && !slices.Contains(violated, e.Invariant) {
					violated = append(violated, e.Invariant)
				}
			}
			if len(tr.Verdicts) != len(invariant.IDs()) {
				t.Errorf("%d verdicts, want one per invariant (%d)", len(tr.Verdicts), len(invariant.IDs()))
			}
			if !slices.Equal(broken, tc.wantBroken) {
				t.Errorf("broken verdicts = %v, want %v", broken, tc.wantBroken)
			}
			slices.Sort(violated)
			want := slices.Clone(tc.wantBroken)
			slices.Sort(want)
			if !slices.Equal(violated, want) {
				t.Errorf("violation events for %v, want %v", violated, want)
			}
		})
	}
}

func TestPlayChinese(t *testing.T) {
	out := mustRun(t, "play", "get-then-del", "--lang", "zh")
	s, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{s.Title.ZH, "误删", "不变量：", "互斥（mutex）", "锁 lock:product:1001"} {
		if !strings.Contains(out, want) {
			t.Errorf("play --lang zh lacks %q:\n%s", want, out)
		}
	}
	for _, english := range []string{s.Title.EN, "invariants:", "A deleted the lock that B wrote"} {
		if strings.Contains(out, english) {
			t.Errorf("play --lang zh still has English %q", english)
		}
	}
	assertMarks(t, invariantMarks(t, out, "不变量："), wantMarks([]string{invariant.Mutex, invariant.Ownership, invariant.Resource}))
}

func TestBadInput(t *testing.T) {
	ids, names := scenarios.IDs(), lockimpl.Names()
	tests := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"unknown command", []string{"frobnicate"}, []string{`unknown command "frobnicate"`, "list", "play", "check", "help"}},
		{"flag before command", []string{"--lang", "zh", "list"}, []string{"flags go after the command: lockstep list --lang zh"}},
		{"unknown command after flags", []string{"--lang", "zh", "frobnicate"}, []string{`unknown command "frobnicate"`}},
		{"tui unknown scenario", []string{"--scenario", "no-such-bug"}, append([]string{`unknown scenario "no-such-bug"`}, ids...)},
		{"tui unknown implementation", []string{"--impl", "no-such-lock"}, append([]string{`unknown implementation "no-such-lock"`}, names...)},
		{"tui bad speed", []string{"--speed", "-1"}, []string{"speed -1 out of range"}},
		{"replica without redis", []string{"check", "--replica", "127.0.0.1:6395"}, []string{"--replica, --disposable and --no-acl go with --redis"}},
		{"unreachable server", []string{"play", "get-then-del", "--redis", "127.0.0.1:1"}, []string{"connect 127.0.0.1:1"}},
		{"bad server address", []string{"check", "--redis", "nowhere"}, []string{`server address "nowhere"`}},
		{"IPv6 server address", []string{"check", "--redis", "[::1]:1"}, []string{"connect [::1]:1"}},
		{"tui unreachable server", []string{"--redis", "127.0.0.1:1"}, []string{"connect 127.0.0.1:1"}},
		{"bench without servers", []string{"bench"}, []string{"bench measures real servers: give them with --redis"}},
		{"bench unreachable server", []string{"bench", "--redis", "127.0.0.1:1"}, []string{"connect 127.0.0.1:1"}},
		{"bench unknown implementation", []string{"bench", "--redis", "127.0.0.1:1", "--impl", "uuid-lau"}, []string{`unknown implementation "uuid-lau"`, "did you mean uuid-lua?"}},
		{"clean without servers", []string{"clean"}, []string{"clean removes what lockstep runs left on real servers: give them with --redis"}},
		{"clean unreachable server", []string{"clean", "--redis", "127.0.0.1:1"}, []string{"connect 127.0.0.1:1"}},
		{"clean bad server address", []string{"clean", "--redis", "nowhere"}, []string{`server address "nowhere"`}},
		{"clean unreachable replica", []string{"clean", "--redis", "127.0.0.1:1", "--replica", "127.0.0.1:2"}, []string{"connect 127.0.0.1:1"}},
		{"clean with arguments", []string{"clean", "everything", "--redis", "127.0.0.1:1"}, []string{`clean takes no arguments, got "everything"`}},
		{"clean redis and cluster", []string{"clean", "--redis", "127.0.0.1:1", "--cluster", "127.0.0.1:2"}, []string{"--redis and --cluster are two kinds of servers"}},
		{"clean cluster and replica", []string{"clean", "--cluster", "127.0.0.1:1", "--replica", "127.0.0.1:2"}, []string{"--replica goes with --redis"}},
		{"monitor without a server", []string{"monitor"}, []string{"monitor watches a real server: give it with --redis ADDR"}},
		{"monitor unreachable server", []string{"monitor", "--redis", "127.0.0.1:1"}, []string{"connect 127.0.0.1:1"}},
		{"monitor bad server address", []string{"monitor", "--redis", "nowhere"}, []string{`server address "nowhere"`}},
		{"monitor two servers", []string{"monitor", "--redis", "127.0.0.1:1,127.0.0.1:2"}, []string{"monitor watches one server, and --redis gives 2"}},
		{"monitor with arguments", []string{"monitor", "everything", "--redis", "127.0.0.1:1"}, []string{`monitor takes no arguments, got "everything"`}},
		{"live on a trace", []string{"--live", "--trace", "x.json"}, []string{"--live plays lessons as they run"}},
		{"unknown scenario", []string{"play", "no-such-bug"}, append([]string{`unknown scenario "no-such-bug"`}, ids...)},
		{"unknown implementation", []string{"play", "get-then-del", "--impl", "no-such-lock"}, append([]string{`unknown implementation "no-such-lock"`}, names...)},
		{"unknown lang list", []string{"list", "--lang", "fr"}, []string{`unknown language "fr"`, "en", "zh"}},
		{"unknown lang play", []string{"play", "get-then-del", "--lang", "fr"}, []string{`unknown language "fr"`}},
		{"unknown lang check", []string{"check", "--lang", "fr"}, []string{`unknown language "fr"`}},
		{"unknown format", []string{"play", "get-then-del", "--format", "xml"}, []string{`unknown format "xml"`, "text", "json"}},
		{"undefined flag play", []string{"play", "get-then-del", "--verbose"}, []string{"unknown flag: --verbose", "lockstep play --help"}},
		{"undefined flag list", []string{"list", "--verbose"}, []string{"unknown flag: --verbose", "lockstep list --help"}},
		{"undefined flag check", []string{"check", "--format", "json"}, []string{"unknown flag: --format", "lockstep check --help"}},
		{"flag without value", []string{"play", "get-then-del", "--impl"}, []string{"flag needs an argument", "impl"}},
		{"empty implementation", []string{"play", "get-then-del", "--impl="}, append([]string{`unknown implementation ""`}, names...)},
		{"flag after --", []string{"play", "--", "--impl"}, append([]string{`unknown scenario "--impl"`}, ids...)},
		{"unknown scenario in Chinese", []string{"play", "nope", "--lang", "zh"}, append([]string{`未知的场景 "nope"`}, ids...)},
		{"unknown implementation in Chinese", []string{"play", "get-then-del", "--impl", "nope", "--lang", "zh"}, append([]string{`未知的锁实现 "nope"`}, names...)},
		{"unknown format in Chinese", []string{"play", "get-then-del", "--format", "xml", "--lang", "zh"}, []string{`未知的格式 "xml"`}},
		{"bad bool", []string{"check", "--json=maybe"}, []string{"invalid boolean value", "maybe"}},
		{"play no scenario", []string{"play"}, append([]string{"play needs one scenario"}, ids...)},
		{"play only flags", []string{"play", "--impl", "uuid-lua"}, append([]string{"play needs one scenario"}, ids...)},
		{"play two scenarios", []string{"play", "get-then-del", "failover"}, append([]string{"play needs one scenario"}, ids...)},
		{"list stray argument", []string{"list", "extra"}, []string{"list takes no arguments", "extra"}},
		{"docs without a directory", []string{"docs"}, []string{"docs needs the directory"}},
		{"check stray argument", []string{"check", "extra"}, []string{"check takes no arguments", "extra"}},
		{"check stray after flag", []string{"check", "--json", "extra"}, []string{"check takes no arguments", "extra"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			if !strings.HasPrefix(stderr, "lockstep: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr = %q, want one line starting with %q", stderr, "lockstep: ")
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not mention %q", stderr, want)
				}
			}
		})
	}
}

// letters abbreviates invariants as the check table does.
func letters(ids []string) string {
	if len(ids) == 0 {
		return "—"
	}
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strings.ToUpper(id[:1]))
	}
	return b.String()
}

func TestCheckText(t *testing.T) {
	wholeMatrix(t)
	out := mustRunShared(t, "check")
	ids, names := scenarios.IDs(), lockimpl.Names()
	for _, line := range strings.Split(out, "\n") {
		if n := ansi.StringWidth(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	for i, name := range names {
		if !strings.Contains(out, fmt.Sprintf("%d %s", i+1, name)) {
			t.Errorf("the key does not name column %d %s", i+1, name)
		}
	}
	numbers, rows := checkTable(out, ids)
	var want []string
	for i := range names {
		want = append(want, strconv.Itoa(i+1))
	}
	if !slices.Equal(numbers, want) {
		t.Errorf("column numbers = %v, want %v", numbers, want)
	}
	for _, id := range ids {
		cells, ok := rows[id]
		if !ok {
			t.Errorf("no row for scenario %s", id)
			continue
		}
		if len(cells) != len(names) {
			t.Errorf("row %s has %d cells, want %d: %v", id, len(cells), len(names), cells)
			continue
		}
		for i, name := range names {
			if want := letters(scenarios.Expected(id, name)); cells[i] != want {
				t.Errorf("cell %s × %s = %q, want %q", id, name, cells[i], want)
			}
		}
	}
	summary := fmt.Sprintf("all %d cells meet their expectation\n", len(ids)*len(names))
	if !strings.HasSuffix(out, summary) {
		t.Errorf("check does not end with %q:\n%s", summary, out)
	}
	if strings.Contains(out, "UNMET") || strings.Contains(out, "!") {
		t.Errorf("check reports unmet cells:\n%s", out)
	}
}

// checkTable reads check's table, which comes in blocks of columns when
// there are more implementations than fit in 80 columns: the column numbers
// of every block's header in order, and each scenario's cells across the
// blocks. A row whose id is too long for the label column has the id on a
// line of its own above its cells.
func checkTable(out string, ids []string) (numbers []string, rows map[string][]string) {
	rows = map[string][]string{}
	table, _, _ := strings.Cut(out, "\n\n1 ") // the key starts with column 1
	label := ""
	for line := range strings.Lines(table) {
		f := strings.Fields(line)
		switch indented := strings.HasPrefix(line, " "); {
		case len(f) == 0:
		case indented && label != "":
			rows[label] = append(rows[label], f...)
			label = ""
		case indented:
			numbers = append(numbers, f...)
		case slices.Contains(ids, f[0]) && len(f) > 1:
			rows[f[0]] = append(rows[f[0]], f[1:]...)
		default:
			label += f[0]
		}
	}
	return numbers, rows
}

func TestCheckChinese(t *testing.T) {
	wholeMatrix(t)
	out := mustRun(t, "check", "--lang", "zh")
	want := fmt.Sprintf("全部 %d 个组合都符合预期\n", len(scenarios.IDs())*len(lockimpl.Names()))
	if !strings.HasSuffix(out, want) {
		t.Errorf("check --lang zh does not end with %q:\n%s", want, out)
	}
	if strings.Contains(out, "meet their expectation") {
		t.Errorf("check --lang zh has the English summary:\n%s", out)
	}
}

func TestCheckJSON(t *testing.T) {
	wholeMatrix(t)
	out := mustRunShared(t, "check", "--json")
	raw := decodeJSON[[]map[string]json.RawMessage](t, out)
	for i, r := range raw {
		for _, key := range []string{"scenario", "impl", "broken", "expected", "pass"} {
			if _, ok := r[key]; !ok {
				t.Errorf("result %d lacks key %q", i, key)
			}
		}
		for _, key := range []string{"broken", "expected"} {
			if string(r[key]) == "null" {
				t.Errorf("result %d: %s is null, want a list", i, key)
			}
		}
	}
	type result struct {
		Scenario string   `json:"scenario"`
		Impl     string   `json:"impl"`
		Broken   []string `json:"broken"`
		Expected []string `json:"expected"`
		Pass     bool     `json:"pass"`
	}
	results := decodeJSON[[]result](t, out)
	ids, names := scenarios.IDs(), lockimpl.Names()
	if want := len(ids) * len(names); len(results) != want {
		t.Fatalf("%d results for %d scenarios × %d implementations, want %d", len(results), len(ids), len(names), want)
	}
	for i, r := range results {
		// Scenario-major, in catalogue order.
		if want := [2]string{ids[i/len(names)], names[i%len(names)]}; [2]string{r.Scenario, r.Impl} != want {
			t.Errorf("result %d is %s × %s, want %s × %s", i, r.Scenario, r.Impl, want[0], want[1])
		}
		if !r.Pass {
			t.Errorf("%s × %s does not pass", r.Scenario, r.Impl)
		}
		if !slices.Equal(r.Broken, r.Expected) {
			t.Errorf("%s × %s: broken %v, expected %v", r.Scenario, r.Impl, r.Broken, r.Expected)
		}
		if want := scenarios.Expected(r.Scenario, r.Impl); !slices.Equal(r.Expected, want) {
			t.Errorf("%s × %s: expected %v, matrix says %v", r.Scenario, r.Impl, r.Expected, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	wholeMatrix(t)
	tests := []struct {
		name string
		args []string
	}{
		{"play get-then-del", []string{"play", "get-then-del"}},
		{"play failover redlock", []string{"play", "failover", "--impl", "redlock"}},
		{"play gc-pause fenced zh", []string{"play", "gc-pause", "--impl", "fenced", "--lang", "zh"}},
		{"play del-other watchdog json", []string{"play", "del-other", "--impl", "uuid-lua-watchdog", "--format", "json"}},
		{"check", []string{"check"}},
		{"check json", []string{"check", "--json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := mustRunShared(t, tc.args...)
			again := 2
			if tc.args[0] == "check" {
				// Once more is enough, and it formats the same results
				// again (cache_test.go): scenarios' TestDeterministic runs
				// every cell twice and compares the traces.
				again = 1
			}
			for range again {
				if out := mustRun(t, tc.args...); out != first {
					t.Fatalf("lockstep %s is not deterministic", strings.Join(tc.args, " "))
				}
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestWriteError: output that cannot be written is not a success, and the
// error is reported on stderr.
func TestWriteError(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"list", []string{"list"}},
		{"play", []string{"play", "get-then-del"}},
		{"play json", []string{"play", "get-then-del", "--format", "json"}},
		{"check", []string{"check", "--impl", "setnx,uuid-lua"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(tc.args, failWriter{}, &stderr)
			if code == exitOK {
				t.Errorf("exit %d after a failed write", code)
			}
			if !strings.Contains(stderr.String(), errDiskFull.Error()) {
				t.Errorf("stderr = %q, want it to name %q", stderr.String(), errDiskFull)
			}
		})
	}
}

// explore finds the GET-then-DEL race against uuid-get-del, writes it, and
// play --trace makes it again; a trace whose schedule no longer ends the
// same way is refused.
func TestExploreAndPlayTrace(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"explore", "--impl", "uuid-get-del", "--out", dir}, &stdout, &stderr)
	if code != exitUnmet {
		t.Fatalf("explore exit %d, want 1 (a counterexample); stderr %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"ownership  ✗ broken in 10 moves", "mutex      ✓ no reachable schedule breaks it",
		"every reachable state explored", "A redis-1  DEL lock:product:1001"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("explore output lacks %q:\n%s", want, out)
		}
	}
	file := filepath.Join(dir, "uuid-get-del-ownership.json")
	// Every file it wrote is named, with the command that plays it.
	if want := "wrote " + file + "\nstep through it: lockstep --trace " + file + "\n"; stderr.String() != want {
		t.Errorf("explore --out said %q on stderr, want %q", stderr.String(), want)
	}
	played := mustRun(t, "play", "--trace", file)
	if !strings.Contains(played, "✗ OWNERSHIP: A deleted the lock that B wrote") {
		t.Errorf("play --trace does not show the violation:\n%s", played)
	}
	for _, f := range []string{"md", "mermaid", "json"} {
		mustRun(t, "play", "--trace", file, "--format", f)
	}
	// Tamper with the schedule: drop the last move (A's DEL).
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr trace.Trace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	tr.Schedule.Moves = tr.Schedule.Moves[:len(tr.Schedule.Moves)-1]
	b, _ = json.Marshal(tr)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"play", "--trace", bad}, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "does not replay") {
		t.Errorf("tampered trace: exit %d, stderr %q", code, stderr.String())
	}
	// uuid-lua: nothing within the bound, exit 0, and the bound is stated.
	stdout.Reset()
	if code := run([]string{"explore", "--impl", "uuid-lua", "--json"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("explore uuid-lua exit %d: %s", code, stderr.String())
	}
	var res struct {
		Complete bool  `json:"complete"`
		States   int   `json:"states"`
		Found    []any `json:"found"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || !res.Complete || res.States == 0 || len(res.Found) != 0 {
		t.Errorf("explore uuid-lua --json = %+v (%v)", res, err)
	}
	if strings.Contains(stdout.String(), `"nodes"`) {
		t.Errorf("explore uuid-lua --json names nodes: %s", stdout.String())
	}
	// With --json the findings name their files too.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"explore", "--impl", "uuid-get-del", "--json", "--out", dir}, &stdout, &stderr); code != exitUnmet ||
		!strings.Contains(stdout.String(), `"file": "`+jsonEscape(file)+`"`) || !strings.Contains(stderr.String(), "wrote "+file+"\n") {
		t.Errorf("explore --json --out: exit %d, stdout %s, stderr %q", code, stdout.String(), stderr.String())
	}
	// Redlock on five servers: the result says so, as its text does.
	stdout.Reset()
	if code := run([]string{"explore", "--impl", "redlock", "--nodes", "5", "--depth", "2", "--json"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), `"nodes": 5,`) {
		t.Errorf("explore redlock --nodes 5 --json: exit %d, %s", code, stdout.String())
	}
	if out := mustRun(t, "explore", "--impl", "redlock", "--nodes", "5", "--depth", "2"); !strings.Contains(out, "\nRedlock on 5 servers\n") {
		t.Errorf("explore redlock --nodes 5 does not say so:\n%s", out)
	}
	for _, args := range [][]string{
		{"explore"}, {"explore", "--impl", "nope"}, {"explore", "--impl", "setnx", "--faults", "meteor"},
		{"explore", "--impl", "setnx", "--clients", "7"}, {"play", "--trace", filepath.Join(dir, "missing.json")},
		// The memory bound (#37 item 7): at most a million states.
		{"explore", "--impl", "setnx", "--max-states", "0"}, {"explore", "--impl", "setnx", "--max-states", "1000001"},
	} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != exitUsage || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// jsonEscape is s as it appears inside a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
