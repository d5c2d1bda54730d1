package tui

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// sameAlignment fails unless align lines a and b up exactly as the one
// table of n × m scores did.
func sameAlignment(t *testing.T, where string, a, b *trace.Trace) {
	t.Helper()
	got, gotDiverge, ok := align(a, b)
	want, wantDiverge := alignOneTable(a, b)
	if !ok {
		t.Fatalf("%s: not compared", where)
	}
	if gotDiverge != wantDiverge || !slices.Equal(got, want) {
		at := 0
		for at < min(len(got), len(want)) && got[at] == want[at] {
			at++
		}
		t.Fatalf("%s: %d rows diverging at %d, one table's %d diverging at %d; first difference at row %d",
			where, len(got), gotDiverge, len(want), wantDiverge, at)
	}
}

// Every built-in lesson's run of each implementation, beside its fix and
// the fix beside it, lines up one instant at a time as it did in one table.
func TestAlignAsOneTable(t *testing.T) {
	traces := allTraces()
	pairs := 0
	for _, s := range scenarios.All() {
		for _, impl := range lockimpl.Names() {
			l, r := traces[cell{s.ID, impl}], traces[cell{s.ID, s.Fix(impl)}]
			if l == nil || r == nil {
				continue
			}
			sameAlignment(t, fmt.Sprintf("%s: %s vs %s", s.ID, impl, s.Fix(impl)), l, r)
			sameAlignment(t, fmt.Sprintf("%s: %s vs %s", s.ID, s.Fix(impl), impl), r, l)
			pairs++
		}
	}
	if pairs < len(scenarios.All()) {
		t.Fatalf("only %d pairs compared", pairs)
	}
}

// Runs made of few instants, actors, kinds and texts have many equally good
// alignments; the rows are one table's, its ties broken alike.
func TestAlignAsOneTableWithTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 3))
	run := func() *trace.Trace {
		tr := &trace.Trace{Events: make([]trace.Event, rng.IntN(25))}
		at := time.Duration(0)
		for i := range tr.Events {
			at += time.Duration(rng.IntN(3)) * time.Second * time.Duration(rng.IntN(2))
			tr.Events[i] = trace.Event{Step: i, T: at,
				Kind:  []trace.Kind{trace.KindCommand, trace.KindNarration}[rng.IntN(2)],
				Actor: []string{"A", "B"}[rng.IntN(2)],
				Text:  text.New([]string{"x", "y"}[rng.IntN(2)], "")}
		}
		return tr
	}
	for k := range 3000 {
		a, b := run(), run()
		sameAlignment(t, fmt.Sprintf("runs %d", k), a, b)
	}
}

// crowd is n copies of one event of get-then-del's run, all at t=0: a
// table of (n+1)² scores for one instant.
func crowd(impl string, n int) *trace.Trace {
	tr := *allTraces()[cell{"get-then-del", "uuid-get-del"}]
	tr.Impl = impl
	tr.Events = make([]trace.Event, n)
	for i := range tr.Events {
		tr.Events[i] = allTraces()[cell{"get-then-del", "uuid-get-del"}].Events[2]
		tr.Events[i].Step, tr.Events[i].T = i, 0
	}
	return &tr
}

// Two runs whose instants would need more than 2²⁶ scores (8,200 events at
// one instant in each) are not compared, as the player page does not
// compare them; nor are two whose instants need that many together (5,800
// at each of two instants, each table alone within the bound).
func TestAlignTooManyAtOnce(t *testing.T) {
	if rows, _, ok := align(crowd("uuid-get-del", 8200), crowd("uuid-lua", 8200)); ok || rows != nil {
		t.Errorf("8,200 events at one instant in each: compared (%d rows)", len(rows))
	}
	twice := func(impl string) *trace.Trace {
		tr := crowd(impl, 11600)
		for i := 5800; i < len(tr.Events); i++ {
			tr.Events[i].T = time.Second
		}
		return tr
	}
	if rows, _, ok := align(twice("uuid-get-del"), twice("uuid-lua")); ok || rows != nil {
		t.Errorf("5,800 events at each of two instants in each: compared (%d rows)", len(rows))
	}
}

// c on two such runs says why it does not compare them, in English and in
// Chinese, and stays where it was on the run.
func TestCompareTooManyAtOnce(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{
		{"en", "these two runs have too many events at the same moments to be compared here"},
		{"zh", "这两次运行在同一时刻的事件太多，无法在这里对比"},
	} {
		opts := Options{Scenario: "get-then-del", Lang: tc.lang, Step: 5}
		m := newModel(opts, map[cell]*trace.Trace{
			{"get-then-del", "uuid-get-del"}: crowd("uuid-get-del", 8200),
			{"get-then-del", "uuid-lua"}:     crowd("uuid-lua", 8200),
		})
		m = send(m, tea.WindowSizeMsg{Width: 100, Height: 30})
		m, _ = press(m, "c")
		p := m.player
		if p.compare || p.otr != nil || p.tr == nil || p.step != 5 {
			t.Errorf("%s: c: compare %v, step %d; want the run, at step 5", tc.lang, p.compare, p.step)
		}
		if v := m.View(); !strings.Contains(strings.Join(strings.Fields(v), " "), tc.want) {
			t.Errorf("%s: the view does not say %q:\n%s", tc.lang, tc.want, v)
		}
	}
}

// The widest lesson the limits allow (web/testdata/widest.lesson: eight
// clients on nine servers, 38,674 events against redlock) beside its fix
// needed a table of n × m scores, 12 GB; one instant at a time they align
// in a few megabytes. Its first 15s (1,982 events a run, 31 MB in one
// table) run by default, the whole five minutes with LOCKSTEP_LONG=1.
func TestAlignWidestRunsIsSmall(t *testing.T) {
	for _, tc := range []struct {
		horizon  string
		long     bool
		maxBytes uint64
	}{
		{"15s", false, 4 << 20},
		{"5m", true, 64 << 20},
	} {
		t.Run(tc.horizon, func(t *testing.T) {
			if tc.long && os.Getenv("LOCKSTEP_LONG") != "1" {
				t.Skip("LOCKSTEP_LONG=1 plays the widest lesson's two runs (30 s)")
			}
			a, b := widestRuns(t, tc.horizon)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rows, _, ok := align(a, b)
			runtime.ReadMemStats(&after)
			if !ok || len(rows) < max(len(a.Events), len(b.Events)) {
				t.Fatalf("not compared (%v), or %d rows for %d and %d events", ok, len(rows), len(a.Events), len(b.Events))
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.maxBytes {
				t.Errorf("aligning %d beside %d events allocated %.1f MiB, want at most %.1f",
					len(a.Events), len(b.Events), float64(got)/(1<<20), float64(tc.maxBytes)/(1<<20))
			}
		})
	}
}

// widestRuns plays web/testdata/widest.lesson up to horizon against redlock
// and its fix.
func widestRuns(t *testing.T, horizon string) (*trace.Trace, *trace.Trace) {
	t.Helper()
	src, err := os.ReadFile("../web/testdata/widest.lesson")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.ParseLesson("widest.lesson", []byte(strings.Replace(string(src), "horizon=5m", "horizon="+horizon, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var out []*trace.Trace
	for _, name := range []string{"redlock", s.Fix("redlock")} {
		info, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := s.Run(info)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out[0], out[1]
}
