package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// render calls f with a buffer and returns what it wrote, failing the test
// on an error.
func render(t *testing.T, f func(w *bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatalf("render: %v", err)
	}
	return b.String()
}

func assertContains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func assertLacks(t *testing.T, out string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(out, u) {
			t.Errorf("output has %q:\n%s", u, out)
		}
	}
}

// results builds check results for two scenarios × two implementations; the
// cell s2 × impl-b breaks mutex where nothing was expected.
func results() []scenarios.Result {
	cell := func(s, impl string, broken, expected []string) scenarios.Result {
		return scenarios.Result{Scenario: s, Impl: impl, Broken: broken, Expected: expected,
			Pass: strings.Join(broken, ",") == strings.Join(expected, ",")}
	}
	return []scenarios.Result{
		cell("s1", "impl-a", []string{}, []string{}),
		cell("s1", "impl-b", []string{invariant.Ownership, invariant.Liveness}, []string{invariant.Ownership, invariant.Liveness}),
		cell("s2", "impl-a", []string{invariant.Mutex, invariant.Resource}, []string{invariant.Mutex, invariant.Resource}),
		cell("s2", "impl-b", []string{invariant.Mutex}, []string{}),
	}
}

// allMet is results with the unmet cell's expectation corrected.
func allMet() []scenarios.Result {
	rs := results()
	rs[3].Expected, rs[3].Pass = []string{invariant.Mutex}, true
	return rs
}

// rows reads a matrix table into implementation → cells.
func rows(out string) map[string][]string {
	m := map[string][]string{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "s1" || f[0] == "s2") {
			m[f[0]] = f[1:]
		}
	}
	return m
}

func TestMatrix(t *testing.T) {
	tests := []struct {
		name    string
		results []scenarios.Result
		lang    string
		want    map[string][]string
		summary []string
		lacks   []string
	}{
		{
			name:    "unmet cell",
			results: results(),
			lang:    "en",
			want:    map[string][]string{"s1": {"—", "OL"}, "s2": {"MR", "M!"}},
			summary: []string{"UNMET s2 × impl-b: expected {}, got {mutex}\n", "1 of 4 cells do not meet their expectation\n", "\n1 impl-a · 2 impl-b\n"},
			lacks:   []string{"all 4 cells"},
		},
		{
			name:    "unmet cell zh",
			results: results(),
			lang:    "zh",
			want:    map[string][]string{"s1": {"—", "OL"}, "s2": {"MR", "M!"}},
			summary: []string{"不符合预期 s2 × impl-b: 预期 {}, 实际 {mutex}\n", "1 / 4 个组合不符合预期\n", "M 互斥"},
			lacks:   []string{"UNMET", "expected"},
		},
		{
			name:    "all met",
			results: allMet(),
			lang:    "en",
			want:    map[string][]string{"s1": {"—", "OL"}, "s2": {"MR", "M"}},
			summary: []string{"all 4 cells meet their expectation\n", "M mutex · O ownership · L liveness · R resource"},
			lacks:   []string{"UNMET", "!"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, func(w *bytes.Buffer) error { return Matrix(w, tc.results, tc.lang) })
			if got := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(got, " ") != "1 2" {
				t.Errorf("header = %v, want [1 2]", got)
			}
			got := rows(out)
			for id, cells := range tc.want {
				if strings.Join(got[id], " ") != strings.Join(cells, " ") {
					t.Errorf("row %s = %v, want %v", id, got[id], cells)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("rows %v, want %v", got, tc.want)
			}
			assertContains(t, out, tc.summary...)
			assertLacks(t, out, tc.lacks...)
		})
	}
}

// demoTrace is a hand-made trace with one event of each rendering kind.
func demoTrace() *trace.Trace {
	text := func(en, zh string) text.Text { return text.Text{EN: en, ZH: zh} }
	return &trace.Trace{
		Scenario: "demo",
		Title:    text("a demo", "演示"),
		Impl:     "setnx",
		Key:      "lock:x",
		TTL:      30 * time.Second,
		Servers:  []string{"redis-1", "redis-2"},
		Clients:  []string{"A", "B"},
		Events: []trace.Event{
			{Step: 0, Kind: trace.KindNarration, Text: text("story begins", "故事开始")},
			{Step: 1, T: 1500 * time.Millisecond, Kind: trace.KindCommand, Actor: "A", Server: "redis-1",
				Command: "SET lock:x A NX", Reply: "OK", Text: text("A writes", "A 写入")},
			{Step: 2, T: 2 * time.Second, Kind: trace.KindViolation, Invariant: invariant.Mutex, Text: text("two holders", "两个持有者")},
			{Step: 3, T: 2 * time.Second, Kind: trace.KindExpire, Text: text("key expires", "键过期")},
		},
		Verdicts: []trace.Verdict{
			{Invariant: invariant.Mutex, Broken: true, Step: 2, T: 2 * time.Second, Reason: text("two holders", "两个持有者")},
			{Invariant: invariant.Liveness},
		},
	}
}

func TestTimeline(t *testing.T) {
	tests := []struct {
		name  string
		lang  string
		want  []string
		lacks []string
	}{
		{"en", "en", []string{
			"demo × setnx — a demo\n",
			"lock lock:x, TTL 30s · servers redis-1 redis-2 · clients A B\n",
			"   0.000    0              » story begins\n",
			"   1.500    1  A           redis-1  SET lock:x A NX → OK\n",
			"                               A writes\n",
			"   2.000    2              ✗ MUTEX: two holders\n",
			"   2.000    3              key expires\n",
			"\ninvariants:\n",
			"  mutex      ✗ step 2, t=2.000s: two holders\n",
			"  liveness   ✓\n",
		}, []string{"演示", "不变量"}},
		{"zh", "zh", []string{
			"demo × setnx — 演示\n",
			"锁 lock:x，TTL 30 秒 · 服务器 redis-1 redis-2 · 客户端 A B\n",
			"» 故事开始\n",
			"                               A 写入\n",
			"✗ 互斥（mutex）：两个持有者\n",
			"\n不变量：\n",
			"  互斥（mutex）      ✗ 第 2 步，第 2 秒：两个持有者\n", "  活性（liveness）   ✓\n",
			// Issue #29: Chinese punctuation and units, and an invariant
			// named one way, 互斥（mutex）, the Chinese name first.
		}, []string{"a demo", "invariants:", "story begins", "MUTEX", "TTL 30s", ", TTL", "t=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, func(w *bytes.Buffer) error { return Timeline(w, demoTrace(), tc.lang) })
			assertContains(t, out, tc.want...)
			assertLacks(t, out, tc.lacks...)
		})
	}
}

// A handout in Chinese says its header and its verdicts with Chinese
// punctuation and units, as the rest of it (issue #29: "锁 lock:product:1001,
// TTL 30s"), and names an invariant 互斥（mutex）.
func TestHandoutChinese(t *testing.T) {
	md := render(t, func(w *bytes.Buffer) error { return Handout(w, demoTrace(), "zh") })
	assertContains(t, md, "- **锁：** `lock:x`，TTL 30 秒；服务器 redis-1、redis-2；客户端 A、B\n",
		"| 互斥（`mutex`） | ✗ 第 2 步（第 2 秒）：两个持有者 |", "| # | 时刻 |", "| 1 | 1.5 秒 | A |")
	assertLacks(t, md, "TTL 30s", "t=2", "MUTEX", "| `mutex` |", "| 1.5s |")
}

// list prints each scenario with the implementation it opens with, and
// every summary wrapped to fit 80 columns (issue #15: lines of 190).
func TestList(t *testing.T) {
	tests := []struct {
		lang     string
		headings []string
	}{
		{"en", []string{"scenarios (failure modes), each with the implementation it opens with:\n", "\nimplementations:\n"}},
		{"zh", []string{"场景（故障模式），以及每个场景默认演示的锁实现：\n", "\n锁实现：\n"}},
	}
	// squeeze drops the white space, where a wrapped summary was cut.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			out := render(t, func(w *bytes.Buffer) error { return List(w, tc.lang) })
			assertContains(t, out, tc.headings...)
			for line := range strings.Lines(out) {
				if n := ansi.StringWidth(strings.TrimSuffix(line, "\n")); n > 80 {
					t.Errorf("a line of %d columns: %q", n, line)
				}
			}
			for _, s := range scenarios.All() {
				if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(s.ID) + ` +` + regexp.QuoteMeta(s.Naive) + `$`).MatchString(out) {
					t.Errorf("no line %q followed by its naive implementation %s", s.ID, s.Naive)
				}
				assertContains(t, squeeze(out), squeeze(s.Summary.In(tc.lang)))
			}
			for _, in := range lockimpl.All() {
				assertContains(t, out, "\n  "+in.Name+"\n")
				assertContains(t, squeeze(out), squeeze(in.Summary.In(tc.lang)))
			}
		})
	}
}

func TestJSON(t *testing.T) {
	out := render(t, func(w *bytes.Buffer) error { return JSON(w, results()[:1]) })
	want := "[\n  {\n    \"scenario\": \"s1\",\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("JSON is not indented by two spaces:\n%s", out)
	}
	if !strings.HasSuffix(out, "]\n") {
		t.Errorf("JSON does not end with a newline:\n%q", out)
	}
	var back []scenarios.Result
	if err := json.Unmarshal([]byte(out), &back); err != nil {
		t.Fatalf("JSON does not parse back: %v", err)
	}
	if len(back) != 1 || back[0].Scenario != "s1" || back[0].Impl != "impl-a" || !back[0].Pass {
		t.Errorf("round trip = %+v", back)
	}
}

// countingWriter fails every write and counts the attempts.
type countingWriter struct{ writes int }

var errBroken = errors.New("broken pipe")

func (w *countingWriter) Write([]byte) (int, error) {
	w.writes++
	return 0, errBroken
}

// TestWriteError: every renderer returns the first write error and stops
// writing after it.
func TestWriteError(t *testing.T) {
	tests := []struct {
		name   string
		render func(w *countingWriter) error
	}{
		{"Timeline", func(w *countingWriter) error { return Timeline(w, demoTrace(), "en") }},
		{"Matrix", func(w *countingWriter) error { return Matrix(w, results(), "en") }},
		{"List", func(w *countingWriter) error { return List(w, "en") }},
		{"JSON", func(w *countingWriter) error { return JSON(w, results()) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &countingWriter{}
			if err := tc.render(w); !errors.Is(err, errBroken) {
				t.Errorf("error = %v, want %v", err, errBroken)
			}
			if w.writes != 1 {
				t.Errorf("%d writes, want 1 (stop after the first error)", w.writes)
			}
		})
	}
}
