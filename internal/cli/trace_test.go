package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// engineTrace is get-then-del × uuid-get-del as play --format json prints
// it: a trace without a schedule.
func engineTrace(t *testing.T) *trace.Trace {
	t.Helper()
	return decodeJSON[*trace.Trace](t, mustRun(t, "play", "get-then-del", "--format", "json"))
}

// exploredTrace is the explorer's counterexample for set-nx-ex: a trace
// with a schedule.
func exploredTrace(t *testing.T) *trace.Trace {
	t.Helper()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explore", "--impl", "set-nx-ex", "--out", dir}, &stdout, &stderr); code != exitUnmet {
		t.Fatalf("explore set-nx-ex: exit %d, stderr %s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "set-nx-ex-ownership.json"))
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON[*trace.Trace](t, string(b))
}

// writeTrace writes v as JSON to a new file and returns its path.
func writeTrace(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// firstOf is the index of the first event of kind k.
func firstOf(t *testing.T, tr *trace.Trace, k trace.Kind) int {
	t.Helper()
	for i, e := range tr.Events {
		if e.Kind == k {
			return i
		}
	}
	t.Fatalf("no %s event", k)
	return -1
}

// firstBroken is the index of the first verdict that broke.
func firstBroken(t *testing.T, tr *trace.Trace) int {
	t.Helper()
	for i, v := range tr.Verdicts {
		if v.Broken {
			return i
		}
	}
	t.Fatal("no broken verdict")
	return -1
}

// A trace file is checked whole before anything renders or replays it; the
// error names the field. These traces used to panic a renderer (no clients:
// mermaid; more addresses than servers: text), exhaust memory (a schedule of
// 100000 clients) or render with exit 0 (an unknown implementation, time
// going backwards, a verdict at step 99999) — issue "Hardening", items 3, 4
// and 9.
func TestPlayTraceRejectsMalformed(t *testing.T) {
	engine, explored := engineTrace(t), exploredTrace(t)
	type tt = trace.Trace
	for _, tc := range []struct {
		name     string
		explored bool // start from the explorer's trace, not the engine's
		mutate   func(*testing.T, *tt)
		want     string
	}{
		{"schema", false, func(_ *testing.T, tr *tt) { tr.Schema = "lockstep.trace/v0" },
			`schema: "lockstep.trace/v0", want "lockstep.trace/v1"`},
		{"no clients", false, func(_ *testing.T, tr *tt) { tr.Clients = nil }, "clients: none"},
		{"a client twice", false, func(_ *testing.T, tr *tt) { tr.Clients[1] = tr.Clients[0] }, `clients[1]: "A" twice`},
		{"no servers", false, func(_ *testing.T, tr *tt) { tr.Servers = nil }, "servers: none"},
		{"more addresses than servers", false, func(_ *testing.T, tr *tt) { tr.Addrs = []string{"a:1", "b:2"} },
			"addrs: 2, more than the servers (1)"},
		{"unknown implementation", false, func(_ *testing.T, tr *tt) { tr.Impl = "nope" },
			`impl: unknown implementation "nope"`},
		{"no lease", false, func(_ *testing.T, tr *tt) { tr.TTL = 0 }, "ttl_ns: 0s"},
		{"no events", false, func(_ *testing.T, tr *tt) { tr.Events = nil }, "events: none"},
		{"time going backwards", false, func(_ *testing.T, tr *tt) { tr.Events[3].T, tr.Events[4].T = 2*time.Second, time.Second },
			"events[4].t_ns: 1s is before the previous event's 2s"},
		{"a step out of place", false, func(_ *testing.T, tr *tt) { tr.Events[5].Step = 7 }, "events[5].step: 7, want 5"},
		{"unknown kind", false, func(_ *testing.T, tr *tt) { tr.Events[2].Kind = "boom" }, `events[2].kind: unknown kind "boom"`},
		{"unknown actor", false, func(t *testing.T, tr *tt) { tr.Events[firstOf(t, tr, trace.KindCommand)].Actor = "Z" },
			`.actor: "Z" is not one of the clients`},
		{"unknown server", false, func(t *testing.T, tr *tt) { tr.Events[firstOf(t, tr, trace.KindCommand)].Server = "redis-9" },
			`.server: "redis-9" is not one of the servers`},
		{"unknown invariant", false, func(t *testing.T, tr *tt) { tr.Events[firstOf(t, tr, trace.KindViolation)].Invariant = "nope" },
			`.invariant: unknown invariant "nope"`},
		{"a snapshot without clients", false, func(_ *testing.T, tr *tt) { tr.Events[6].Snap.Clients = nil },
			"events[6].snapshot.clients: 0, want 3 (one per client)"},
		{"a snapshot with a server too many", false, func(_ *testing.T, tr *tt) {
			tr.Events[0].Snap.Servers = append(tr.Events[0].Snap.Servers, tr.Events[0].Snap.Servers[0])
		}, "events[0].snapshot.servers: 2, want 1 (one per server)"},
		{"a verdict missing", false, func(_ *testing.T, tr *tt) { tr.Verdicts = tr.Verdicts[1:] },
			"verdicts: 3, want 4 (one per invariant)"},
		{"a verdict at step 99999", false, func(t *testing.T, tr *tt) { tr.Verdicts[firstBroken(t, tr)].Step = 99999 },
			".step: 99999 is not an event"},
		{"schedule: -3 clients", true, func(_ *testing.T, tr *tt) { tr.Schedule.Clients = -3 },
			"schedule.clients: -3, want 2 or 3"},
		{"schedule: 100000 clients", true, func(_ *testing.T, tr *tt) { tr.Schedule.Clients = 100000 },
			"schedule.clients: 100000, want 2 or 3"},
		{"schedule: no attempt", true, func(_ *testing.T, tr *tt) { tr.Schedule.Attempts = 0 },
			"schedule.attempts: 0, want 1 to 12"},
		{"schedule: unknown fault", true, func(_ *testing.T, tr *tt) { tr.Schedule.Faults = []trace.Fault{"meteor"} },
			`schedule.faults[0]: unknown fault "meteor"`},
		{"schedule: too many moves", true, func(_ *testing.T, tr *tt) { tr.Schedule.Moves = make([]string, 100001) },
			"schedule.moves: 100001 moves, the most is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := engine
			if tc.explored {
				base = explored
			}
			var tr trace.Trace
			if err := json.Unmarshal([]byte(mustJSON(t, base)), &tr); err != nil {
				t.Fatal(err)
			}
			tc.mutate(t, &tr)
			file := writeTrace(t, &tr)
			for _, format := range formats {
				code, stdout, stderr := runCLI(t, "play", "--trace", file, "--format", format)
				if code != exitUsage || !strings.Contains(stderr, file+": ") || !strings.Contains(stderr, tc.want) {
					t.Errorf("--format %s: exit %d, stderr %q; want exit %d and %q", format, code, stderr, exitUsage, tc.want)
				}
				if stdout != "" {
					t.Errorf("--format %s: a rejected trace rendered:\n%.300s", format, stdout)
				}
			}
		})
	}
	// The traces the tests start from are accepted as they are.
	for _, tr := range []*trace.Trace{engine, explored} {
		mustRun(t, "play", "--trace", writeTrace(t, tr))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A trace file is read to a limit: a file larger than maxTraceSize is
// refused before it is decoded, however valid (issue "Hardening", item 4).
func TestPlayTraceRefusesAHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(mustJSON(t, engineTrace(t))); err != nil {
		t.Fatal(err)
	}
	// A sparse tail past the limit: the size refuses it before a byte is
	// read (TestTraceReadToTheLimit cuts a valid trace that grows).
	if err := f.Truncate(maxTraceSize + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "play", "--trace", path)
	if code != exitUsage || !strings.Contains(stderr, path+": larger than 1024 MiB") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// Loading a trace with a schedule replays it; Ctrl-C (a cancelled context)
// stops the replay (issue "Hardening", item 4).
func TestPlayTraceHonoursCancellation(t *testing.T) {
	file := writeTrace(t, exploredTrace(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runCtx(ctx, []string{"play", "--trace", file}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "context canceled") || stdout.Len() > 0 {
		t.Errorf("cancelled: exit %d, stderr %q, stdout %.200q", code, stderr.String(), stdout.String())
	}
}

// evil clears the screen, sets the window title and rings the bell.
const evil = "\x1b[2J\x1b]0;pwned\x07"

// controls lists the control characters in s other than newline and tab.
func controls(s string) []string {
	var out []string
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
			out = append(out, fmt.Sprintf("%U", r))
		}
	}
	return out
}

// Text from a trace file never reaches the terminal as an escape sequence:
// every format shows the control characters as visible escapes (issue
// "Hardening", item 5).
func TestPlayTraceEscapesControlCharacters(t *testing.T) {
	tr := engineTrace(t)
	tr.Title = text.Text{EN: "title" + evil, ZH: "标题" + evil}
	tr.Events[0].Text = text.Text{EN: "narration\n" + evil, ZH: "旁白\t" + evil}
	c := firstOf(t, tr, trace.KindCommand)
	tr.Events[c].Command += evil
	tr.Events[c].Reply += evil
	tr.Events[c].Short.EN += evil
	for i := range tr.Events {
		for _, srv := range tr.Events[i].Snap.Servers {
			for k := range srv.Keys {
				srv.Keys[k].Value += evil
			}
		}
	}
	file := writeTrace(t, tr)
	for _, format := range formats {
		for _, lang := range []string{"en", "zh"} {
			out := mustRun(t, "play", "--trace", file, "--format", format, "--lang", lang)
			if bad := controls(out); len(bad) > 0 {
				t.Errorf("--format %s --lang %s: control characters %v in the output:\n%q", format, lang, bad, out)
			}
			if format != "json" && !strings.Contains(out, `\x1b[2J\x1b]0`) {
				t.Errorf("--format %s --lang %s: the escapes are not shown:\n%s", format, lang, out)
			}
		}
	}
}

// Issue #37 item 4: a trace file that names 100,000 clients, or servers,
// is refused at once for the bound it breaks (sim.MaxTraceNames); checking
// each name against the others took 13 s, and 300,000 104 s.
func TestTraceWithManyNamesIsRefused(t *testing.T) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i)
	}
	for _, field := range []string{"clients", "servers"} {
		tr := engineTrace(t)
		if field == "clients" {
			tr.Clients = names
		} else {
			tr.Servers = names
		}
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = readTrace(context.Background(), bytes.NewReader(b), "many.json")
		if want := field + ": 100000 names; a trace has at most 64"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %.300v, want %q", field, err, want)
		}
	}
}
