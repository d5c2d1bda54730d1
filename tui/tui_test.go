package tui

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// updating says whether -update was given: rewrite the golden files. The
// flag itself is registered by teatest's golden package, which this test
// binary links.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Golden files hold plain text: the Ascii profile drops every escape code.
func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// allTraces runs every cell once for the whole test binary.
var allTraces = sync.OnceValue(func() map[cell]*trace.Trace {
	out := map[cell]*trace.Trace{}
	results, err := scenarios.Check()
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		out[cell{r.Scenario, r.Impl}] = r.Trace
	}
	return out
})

// newTest builds a model of size w×h with every trace already in its cache.
func newTest(t testing.TB, opts Options, w, h int) Model {
	t.Helper()
	if err := opts.Check(); err != nil {
		t.Fatal(err)
	}
	m := newModel(opts, maps.Clone(allTraces()))
	return send(m, tea.WindowSizeMsg{Width: w, Height: h})
}

func send(m Model, msg tea.Msg) Model {
	next, _ := m.Update(msg)
	return next.(Model)
}

// keyMsg turns a key name as bubbletea prints it into a key message.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	// Anything else is typed: several letters at once are a burst, as a
	// terminal delivers keys pressed faster than it is read.
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends keys in order and returns the model and the last command.
func press(m Model, keys ...string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		var next tea.Model
		next, cmd = m.Update(keyMsg(k))
		m = next.(Model)
	}
	return m, cmd
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./tui -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fits checks that a view stays inside w×h.
func fits(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) > h {
		t.Errorf("view has %d lines, terminal has %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d wide, terminal is %d: %q", i, n, w, l)
		}
	}
}

// startSubset is the part of the catalogue the start screen shows in its
// golden files and key tests: fixed, so that a new failure mode or
// implementation changes neither (TestStartListsScroll walks the whole
// catalogue).
var startSubset = struct{ ids, names []string }{
	ids:   []string{"setnx-no-ex", "del-other", "get-then-del", "failover", "gc-pause", "hung-holder"},
	names: []string{"setnx", "setnx-expire", "set-nx-ex", "uuid-get-del", "uuid-lua", "uuid-lua-watchdog", "fenced", "reentrant"},
}

// withStartSubset puts startSubset on m's start screen, the cursors where
// a fresh start screen puts them.
func withStartSubset(t testing.TB, m Model) Model {
	t.Helper()
	v := startView{}
	for _, id := range startSubset.ids {
		s, err := scenarios.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		v.scs = append(v.scs, s)
	}
	for _, name := range startSubset.names {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		v.impls = append(v.impls, in)
	}
	v.pick(v.scs[0].ID, v.scs[0].Naive)
	m.start = v
	return m
}

func TestGoldenViews(t *testing.T) {
	getThenDel := Options{Scenario: "get-then-del"}
	for _, tc := range []struct {
		name string
		opts Options
		w, h int
		keys []string
	}{
		{"start-80x24", Options{}, 80, 24, nil},
		{"start-zh-80x24", Options{Lang: "zh"}, 80, 24, nil},
		{"start-moved-120x40", Options{}, 120, 40, []string{"down", "down", "tab", "down", "down", "down"}},
		{"player-mid-80x24", getThenDel, 80, 24, repeat("right", 23)},
		{"player-violation-80x24", getThenDel, 80, 24, []string{"v"}},
		{"player-violation-120x40", getThenDel, 120, 40, []string{"v"}},
		{"player-violation-zh-80x24", Options{Scenario: "get-then-del", Lang: "zh"}, 80, 24, []string{"v"}},
		{"player-redlock-failover-80x24", Options{Scenario: "failover", Impl: "redlock"}, 80, 24, []string{"G"}},
		{"player-gc-pause-fenced-120x40", Options{Scenario: "gc-pause", Impl: "fenced"}, 120, 40, []string{"v", "v"}},
		{"player-clock-jump-redlock-80x24", Options{Scenario: "redlock-clock-jump", Impl: "redlock"}, 80, 24, []string{"v"}},
		{"player-hung-holder-80x24", Options{Scenario: "hung-holder", Impl: "uuid-lua-watchdog"}, 80, 24, []string{"v"}},
		{"compare-80x24", getThenDel, 80, 24, []string{"c", "d"}},
		{"compare-120x40", getThenDel, 120, 40, []string{"c", "d"}},
		{"help-80x24", getThenDel, 80, 24, []string{"?"}},
		{"too-small-50x15", Options{}, 50, 15, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTest(t, tc.opts, tc.w, tc.h)
			if tc.opts.Scenario == "" {
				m = withStartSubset(t, m)
			}
			m, _ = press(m, tc.keys...)
			view := m.View()
			fits(t, view, tc.w, tc.h)
			golden(t, tc.name, view)
		})
	}
}

func repeat(k string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = k
	}
	return out
}

// Every failure mode × implementation plays to the end and back, and every
// step's view fits the terminal.
func TestEveryCellPlaysToTheEndAndBack(t *testing.T) {
	i := -1
	for _, s := range scenarios.All() {
		for _, impl := range lockimpl.Names() {
			if i++; !race.Sampled(i) {
				continue // under the race detector, a sample of the cells
			}
			t.Run(s.ID+"/"+impl, func(t *testing.T) {
				m := newTest(t, Options{Scenario: s.ID, Impl: impl}, 80, 24)
				n := len(m.player.tr.Events)
				for i := 0; i < n+2; i++ {
					fits(t, m.View(), 80, 24)
					m, _ = press(m, "right")
				}
				if m.player.step != n-1 {
					t.Fatalf("after stepping past the end: step %d, want %d", m.player.step, n-1)
				}
				m, _ = press(m, "g")
				if m.player.step != 0 {
					t.Fatalf("g: step %d, want 0", m.player.step)
				}
				m, _ = press(m, "c")
				fits(t, m.View(), 80, 24)
				m, _ = press(m, "G")
				fits(t, m.View(), 80, 24)
			})
		}
	}
}
