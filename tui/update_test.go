package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

func player(t *testing.T, opts Options) Model {
	t.Helper()
	m := newTest(t, opts, 80, 24)
	if m.screen != screenPlayer || !m.player.ready() {
		t.Fatalf("player not open: screen %s, ready %v", m.screen, m.player.ready())
	}
	return m
}

func TestStepKeys(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	last := len(m.player.tr.Events) - 1
	for _, tc := range []struct {
		keys []string
		want int
	}{
		{[]string{"right"}, 1},
		{[]string{"l", "l"}, 2},
		{[]string{"right", "left"}, 0},
		{[]string{"left"}, 0}, // not before the first step
		{[]string{"h"}, 0},
		{[]string{"G"}, last},
		{[]string{"end"}, last},
		{[]string{"G", "right"}, last}, // not past the last step
		{[]string{"G", "g"}, 0},
		{[]string{"G", "home"}, 0},
	} {
		t.Run(strings.Join(tc.keys, " "), func(t *testing.T) {
			got, _ := press(m, tc.keys...)
			if got.player.step != tc.want {
				t.Errorf("step = %d, want %d", got.player.step, tc.want)
			}
		})
	}
}

// v walks the violations in order and wraps around.
func TestViolationKey(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	var want []int
	for i, e := range m.player.tr.Events {
		if e.Kind == trace.KindViolation {
			want = append(want, i)
		}
	}
	if len(want) != 3 {
		t.Fatalf("get-then-del × uuid-get-del has %d violations, want 3", len(want))
	}
	for _, w := range append(want, want[0]) {
		m, _ = press(m, "v")
		if m.player.step != w {
			t.Fatalf("v: step %d, want %d", m.player.step, w)
		}
	}
	// Without violations, v stays put.
	m = player(t, Options{Scenario: "get-then-del", Impl: "uuid-lua"})
	m, _ = press(m, "right", "v")
	if m.player.step != 1 {
		t.Errorf("v with no violation moved to %d", m.player.step)
	}
}

// i switches the implementation and keeps the place on the timeline.
func TestSwitchImplKeepsPosition(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "v") // the ownership violation at t=31.5s
	at := m.player.tr.Events[m.player.step].T
	next := after("uuid-get-del", "")
	m, _ = press(m, "i")
	if m.player.impl != next {
		t.Fatalf("impl after i = %s, want %s (next in the catalogue)", m.player.impl, next)
	}
	if got := m.player.tr.Events[m.player.step].T; got != at {
		t.Errorf("position after switching: t=%s, want t=%s", got, at)
	}
	m, _ = press(m, "tab")
	if want := after(next, ""); m.player.impl != want {
		t.Errorf("impl after tab = %s, want %s", m.player.impl, want)
	}
}

// after is the implementation after name in catalogue order, wrapping
// around, skipping skip: where i and tab go.
func after(name, skip string) string {
	names := lockimpl.Names()
	i := slices.Index(names, name)
	for d := 1; d < len(names); d++ {
		if n := names[(i+d)%len(names)]; n != skip {
			return n
		}
	}
	return name
}

// c compares the naive implementation with the one that fixes the bug, and
// the first divergence is A's release: GET on one side, EVAL on the other.
func TestCompareMode(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "c")
	p := m.player
	if !p.compare || p.other != "uuid-lua" {
		t.Fatalf("compare %v against %q, want uuid-lua", p.compare, p.other)
	}
	if p.diverge < 0 {
		t.Fatal("no divergence found")
	}
	row := p.rows[p.diverge]
	l, r := p.tr.Events[row.l], p.otr.Events[row.r]
	if l.Command != "GET lock:product:1001" || !strings.HasPrefix(r.Command, "EVAL <release>") {
		t.Errorf("first divergence: %q vs %q, want GET vs EVAL <release>", l.Command, r.Command)
	}
	for i := 0; i < p.diverge; i++ {
		if !p.rows[i].same {
			t.Errorf("row %d before the divergence differs", i)
		}
	}
	m, _ = press(m, "d")
	if m.player.row != p.diverge {
		t.Errorf("d: row %d, want %d", m.player.row, p.diverge)
	}
	m, _ = press(m, "i")
	if want := after("uuid-lua", "uuid-get-del"); m.player.other != want || m.player.impl != "uuid-get-del" {
		t.Errorf("i in compare: %s vs %s, want uuid-get-del vs %s", m.player.impl, m.player.other, want)
	}
	m, _ = press(m, "c")
	if m.player.compare {
		t.Error("c did not leave compare mode")
	}
}

// Every pair of aligned rows keeps both traces in order and every event
// appears exactly once.
func TestAlignCoversBothTraces(t *testing.T) {
	traces := allTraces()
	a, b := traces[cell{"del-other", "set-nx-ex"}], traces[cell{"del-other", "uuid-lua-watchdog"}]
	rows, _, _ := align(a, b)
	nextL, nextR := 0, 0
	for _, r := range rows {
		if r.l >= 0 {
			if r.l != nextL {
				t.Fatalf("left event %d out of order", r.l)
			}
			nextL++
		}
		if r.r >= 0 {
			if r.r != nextR {
				t.Fatalf("right event %d out of order", r.r)
			}
			nextR++
		}
		if r.same && signature(a.Events[r.l]) != signature(b.Events[r.r]) {
			t.Fatalf("row marked same but events differ")
		}
	}
	if nextL != len(a.Events) || nextR != len(b.Events) {
		t.Errorf("aligned %d/%d and %d/%d events", nextL, len(a.Events), nextR, len(b.Events))
	}
	if rows, d, _ := align(a, a); d != -1 || len(rows) != len(a.Events) {
		t.Errorf("a trace against itself: divergence %d, %d rows", d, len(rows))
	}
}

func TestPlayPause(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, cmd := press(m, "space")
	if !m.player.playing || cmd == nil {
		t.Fatalf("space: playing %v, cmd %v", m.player.playing, cmd != nil)
	}
	gen := m.player.gen
	m = send(m, tickMsg{gen})
	if m.player.step != 1 {
		t.Errorf("a tick moved to step %d, want 1", m.player.step)
	}
	m, _ = press(m, "space")
	if m.player.playing {
		t.Error("space did not pause")
	}
	m = send(m, tickMsg{gen})
	if m.player.step != 1 {
		t.Errorf("a stale tick moved the player to %d", m.player.step)
	}
	// At the end, playing stops by itself.
	m, _ = press(m, "G", "space")
	if m.player.step != 0 || !m.player.playing {
		t.Errorf("space at the end: step %d playing %v, want a restart", m.player.step, m.player.playing)
	}
	m, _ = press(m, "G")
	m = send(m, tickMsg{m.player.gen})
	if m.player.playing {
		t.Error("still playing after the last step")
	}
}

func TestSpeedKeys(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	if got := speeds[m.player.speed]; got != 2 {
		t.Fatalf("default speed %v, want 2 steps/s", got)
	}
	m, _ = press(m, "+", "+")
	if got := speeds[m.player.speed]; got != 8 {
		t.Errorf("after ++: %v, want 8", got)
	}
	m, _ = press(m, "-", "-", "-", "-", "-", "-")
	if got := speeds[m.player.speed]; got != speeds[0] {
		t.Errorf("after many −: %v, want %v", got, speeds[0])
	}
	if d := interval(m.player.speed); d != 2*time.Second {
		t.Errorf("interval at 0.5/s = %s", d)
	}
}

// On startSubset: down twice is the third failure mode, get-then-del, with
// its own implementation, uuid-get-del; up twice from there is
// setnx-expire.
func TestStartScreenKeys(t *testing.T) {
	m := withStartSubset(t, newTest(t, Options{}, 80, 24))
	m, _ = press(m, "down", "down", "tab", "up", "k", "enter")
	if m.screen != screenPlayer {
		t.Fatalf("enter: screen %s", m.screen)
	}
	if got := m.player.scenario.ID + "/" + m.player.impl; got != "get-then-del/setnx-expire" {
		t.Errorf("opened %s, want get-then-del/setnx-expire", got)
	}
	m, _ = press(m, "esc")
	if m.screen != screenStart {
		t.Errorf("esc: screen %s, want start", m.screen)
	}
	if s, impl := m.start.selected(); s.ID != "get-then-del" || impl != "setnx-expire" {
		t.Errorf("start screen forgot the selection: %s/%s", s.ID, impl)
	}
	// Wrapping.
	m, _ = press(m, "tab", "up", "up", "up")
	ids := startSubset.ids
	if s, _ := m.start.selected(); s.ID != ids[len(ids)-1] {
		t.Errorf("up past the top: %s, want %s", s.ID, ids[len(ids)-1])
	}
}

// The start screen's lists scroll: at 80×24 and at the smallest height (20) every
// scenario and every implementation can be reached and shown with the
// cursor on it, and the screen never grows past the terminal.
func TestStartListsScroll(t *testing.T) {
	for _, h := range []int{24, 20} {
		m := newTest(t, Options{}, 80, h)
		for _, p := range []struct {
			focus string
			names []string
			right bool // the list on the right of the screen
		}{{"", scenarios.IDs(), false}, {"tab", lockimpl.Names(), true}} {
			if p.focus != "" {
				m, _ = press(m, p.focus)
			}
			hidden := false
			for i, name := range p.names {
				view := m.View()
				if n := strings.Count(view, "\n") + 1; n != h {
					t.Errorf("80×%d, cursor on %s: view has %d lines, want %d", h, name, n, h)
				}
				if !strings.Contains(view, "▶ "+name+" ") {
					t.Errorf("80×%d, cursor on %s (%d): not shown\n%s", h, name, i, view)
				}
				hidden = hidden || strings.Contains(listSide(view, 80, p.right), " more ")
				m, _ = press(m, "down")
			}
			if want := len(p.names) > h-12; hidden != want {
				t.Errorf("80×%d, %d rows: hidden-rows marker shown %v, want %v", h, len(p.names), hidden, want)
			}
		}
	}
}

// listSide is the left or the right half of the start screen, where its
// two lists are side by side (each (w-4)/2 wide, a space between): a marker
// of hidden rows in one list says nothing about the other.
func listSide(view string, w int, right bool) string {
	split := (w-4)/2 + 1
	var b strings.Builder
	for line := range strings.Lines(view) {
		if right {
			b.WriteString(ansi.Cut(line, split, w) + "\n")
		} else {
			b.WriteString(ansi.Cut(line, 0, split) + "\n")
		}
	}
	return b.String()
}

func TestLanguageHelpQuit(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "v", "L")
	if m.lang != "zh" || !strings.Contains(m.View(), "误删") || !strings.Contains(m.View(), "不变量") {
		t.Errorf("L did not switch to Chinese:\n%s", m.View())
	}
	m, _ = press(m, "L")
	if m.lang != "en" {
		t.Error("L did not switch back")
	}
	m, _ = press(m, "?")
	if !m.showHelp || !strings.Contains(m.View(), "Keys") {
		t.Error("? did not open the help")
	}
	step := m.player.step
	m, _ = press(m, "right", "esc")
	if m.showHelp || m.player.step != step || m.screen != screenPlayer {
		t.Errorf("esc in help: help %v, step %d (was %d), screen %s", m.showHelp, m.player.step, step, m.screen)
	}
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := press(m, k)
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
}

func TestResize(t *testing.T) {
	m := player(t, Options{Scenario: "failover", Impl: "redlock"})
	for _, size := range [][2]int{{80, 24}, {120, 40}, {64, 20}, {200, 60}} {
		m = send(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		fits(t, m.View(), size[0], size[1])
	}
	m = send(m, tea.WindowSizeMsg{Width: 63, Height: 30})
	if !strings.Contains(m.View(), "at least 64×20") {
		t.Error("a terminal below the minimum does not say so")
	}
}

// Traces arrive through commands when they are not cached yet: the player
// waits for them and keeps its place.
func TestTracesArriveByCommand(t *testing.T) {
	m := New(Options{Scenario: "get-then-del"})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.player.ready() {
		t.Fatal("ready before the trace was loaded")
	}
	if !strings.Contains(m.View(), "running the scenario") {
		t.Errorf("view while loading:\n%s", m.View())
	}
	msg := m.Init()()
	m = send(m, msg)
	if !m.player.ready() || m.player.impl != "uuid-get-del" {
		t.Fatalf("after the trace arrived: ready %v impl %s", m.player.ready(), m.player.impl)
	}
	m, cmd := press(m, "c")
	if m.player.ready() || cmd == nil {
		t.Fatal("compare needs the second trace first")
	}
	m = send(m, cmd())
	if !m.player.ready() || m.player.otr == nil {
		t.Error("compare did not open once the trace arrived")
	}
}

// --autoplay starts the tick chain from Init; each tick is one step.
func TestAutoplayFromInit(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del", Autoplay: true, Speed: 16})
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("autoplay: Init returned no command")
	}
	msg, ok := cmd().(tickMsg)
	if !ok {
		t.Fatalf("Init's command gave %T, want a tick", msg)
	}
	m = send(m, msg)
	if m.player.step != 1 || !m.player.playing {
		t.Errorf("after the first tick: step %d playing %v", m.player.step, m.player.playing)
	}
}

// With --redis the player steps through a recording and says so.
func TestRecordingBanner(t *testing.T) {
	runs := 0
	opts := Options{Scenario: "get-then-del", Recording: "127.0.0.1:6390",
		Runner: func(s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
			runs++
			return allTraces()[cell{s.ID, impl.Name}], nil
		}}
	m := New(opts)
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, m.Init()())
	if runs != 1 {
		t.Fatalf("the runner ran %d times, want 1", runs)
	}
	view := m.View()
	if !strings.Contains(view, "a recording of a real run on 127.0.0.1:6390") {
		t.Errorf("no recording banner:\n%s", view)
	}
	fits(t, view, 80, 24)
	m, cmd := press(m, "c")
	m = send(m, cmd())
	if v := m.View(); !strings.Contains(v, "recorded on 127.0.0.1:6390") && !strings.Contains(v, "⏺") {
		t.Errorf("compare mode does not say it is a recording:\n%s", v)
	}
}
