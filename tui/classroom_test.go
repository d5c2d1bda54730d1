package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Letters typed faster than the terminal is read arrive as one message; each
// is a key of its own, on the start screen and in the player.
func TestKeyBursts(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "lll")
	if m.player.step != 3 {
		t.Errorf("lll: step %d, want 3", m.player.step)
	}
	m, _ = press(m, strings.Repeat("l", 40))
	if m.player.step != 43 {
		t.Errorf("40 l in a burst: step %d, want 43", m.player.step)
	}
	s := newTest(t, Options{}, 80, 24)
	s, _ = press(s, "jj")
	if s.start.sc != 2 {
		t.Errorf("jj on the start screen: row %d, want 2", s.start.sc)
	}
	s, _ = press(s, "jjk")
	if s.start.sc != 3 {
		t.Errorf("jjk: row %d, want 3", s.start.sc)
	}
}

// The whole narration shows, wrapped, at 80×24: hung-holder's first step
// ends with the sentence that says where 150s comes from.
func TestNarrationIsNotCut(t *testing.T) {
	m := player(t, Options{Scenario: "hung-holder", Impl: "uuid-lua-watchdog"})
	v := m.View()
	if !strings.Contains(v, "(10 renewals × 10s + 30s).") {
		t.Errorf("the narration is cut:\n%s", v)
	}
	fits(t, v, 80, 24)
	// What cannot fit says so.
	lines := clip([]string{"a", "b", "c", "d"}, 2, func(n int) string { return fmt.Sprintf("%d more", n) })
	if strings.Join(lines, "|") != "a|3 more" {
		t.Errorf("clip: %q", lines)
	}
}

// One numbering everywhere: the player's step is the trace's event index,
// which play prints and check --json reports.
func TestStepNumbersMatchTheCommandLine(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "v")
	v := m.View()
	want := fmt.Sprintf("step %d/%d", m.player.step, len(m.player.tr.Events)-1)
	if !strings.Contains(v, want) {
		t.Errorf("header lacks %q:\n%s", want, v)
	}
	for _, verdict := range m.player.tr.Verdicts {
		if verdict.Broken && verdict.Step <= m.player.step && !strings.Contains(v, fmt.Sprintf("%-10s ✗ step %d", verdict.Invariant, verdict.Step)) {
			t.Errorf("the invariants panel does not say %s broke at step %d:\n%s", verdict.Invariant, verdict.Step, v)
		}
	}
}

// Without colour, the focused list still shows: it has the thick border.
func TestFocusWithoutColour(t *testing.T) {
	m := newTest(t, Options{}, 80, 24)
	if v := m.View(); !strings.Contains(v, "┃ Failure mode") || strings.Contains(v, "┃ Implementation") {
		t.Errorf("focus on the failure modes is not marked:\n%s", v)
	}
	m, _ = press(m, "tab")
	if v := m.View(); strings.Contains(v, "┃ Failure mode") || !strings.Contains(v, "┃ Implementation") {
		t.Errorf("focus on the implementations is not marked:\n%s", v)
	}
}

// Five Redlock servers share one compact lane at 80×24, so the clients'
// lanes keep room for a command and its reply.
func TestRedlockLanesAt80x24(t *testing.T) {
	m := player(t, Options{Scenario: "redlock-restart", Impl: "redlock"})
	m, _ = press(m, "v")
	v := m.View()
	for _, want := range []string{"│redis 1 2 3 4 5", "SET NX → OK", "redis-3 B#1"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	fits(t, v, 80, 24)
}

// At the documented minimum, 64×20, the start screen keeps its title on the
// first line and every list row on one line, and the footer keeps ? and q.
func TestStartScreenAt64x20(t *testing.T) {
	m := newTest(t, Options{Impl: "uuid-lua-watchdog-uncapped"}, 64, 20)
	m, _ = press(m, "tab")
	for _, lang := range []string{"en", "zh"} {
		m.lang = lang
		v := m.View()
		fits(t, v, 64, 20)
		lines := strings.Split(v, "\n")
		if !strings.HasPrefix(lines[0], "lockstep") {
			t.Errorf("%s: the first line is %q:\n%s", lang, lines[0], v)
		}
		if !strings.Contains(v, "uuid-lua-watchdog-unca") || strings.Contains(v, "\n┃ uncapped") {
			t.Errorf("%s: the long name is not on one row:\n%s", lang, v)
		}
		foot := lines[len(lines)-1]
		for _, want := range []string{"?", "q"} {
			if !strings.Contains(foot, want+" ") {
				t.Errorf("%s: footer %q lacks %s", lang, foot, want)
			}
		}
	}
}

// The footer measures wide characters: at 80×24 in Chinese the start
// screen's footer still ends with help and quit, and no footer is wider
// than the screen.
func TestFooterKeepsHelpAndQuit(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		for _, w := range []int{64, 80} {
			m := newTest(t, Options{Lang: lang}, w, 24)
			lines := strings.Split(m.View(), "\n")
			foot := lines[len(lines)-1]
			if ansi.StringWidth(foot) > w {
				t.Errorf("%s %d: footer is %d wide", lang, w, ansi.StringWidth(foot))
			}
			help, quit := "? help", "q quit"
			if lang == "zh" {
				help, quit = "? 帮助", "q 退出"
			}
			if !strings.Contains(foot, help) || !strings.HasSuffix(strings.TrimSpace(foot), quit) {
				t.Errorf("%s %d: footer %q", lang, w, foot)
			}
		}
	}
}

// A trace from a file has no other implementation: the footer does not offer
// c and i, and the help does not list them.
func TestTraceFileOffersNoCompare(t *testing.T) {
	tr := allTraces()[cell{"get-then-del", "uuid-get-del"}]
	m := player(t, Options{Trace: tr})
	v := m.View()
	if strings.Contains(v, "c compare") || strings.Contains(v, "i/tab impl") {
		t.Errorf("the footer offers keys that do nothing:\n%s", v)
	}
	m, _ = press(m, "?")
	if v := m.View(); strings.Contains(v, "compare") {
		t.Errorf("the help offers compare:\n%s", v)
	}
}

// Keys pressed while the trace is on its way apply once it is there.
func TestKeysWhileLoading(t *testing.T) {
	m := New(Options{})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, cmd := press(m, "enter")
	if m.screen != screenPlayer || m.player.ready() {
		t.Fatal("the player should be waiting for its trace")
	}
	m, _ = press(m, "l", "l", "v")
	m = send(m, cmd())
	want := 0
	for i, e := range m.player.tr.Events {
		if i > 2 && e.Kind == trace.KindViolation {
			want = i
			break
		}
	}
	if want == 0 || m.player.step != want {
		t.Errorf("after l l v while loading: step %d, want %d", m.player.step, want)
	}
}

// v and d with nothing to jump to say so.
func TestNothingToJumpTo(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del", Impl: "uuid-lua"})
	m, _ = press(m, "v")
	if v := m.View(); !strings.Contains(v, "no violation in this timeline") {
		t.Errorf("v without a violation said nothing:\n%s", v)
	}
	m, _ = press(m, "l")
	if strings.Contains(m.View(), "no violation in this timeline") {
		t.Error("the message outlived the next key")
	}
	m, _ = press(m, "d")
	if v := m.View(); !strings.Contains(v, "press c to compare first") {
		t.Errorf("d outside compare mode said nothing:\n%s", v)
	}
	// Compare mode on two traces that never differ (a trace beside itself).
	p := &m.player
	p.compare, p.other, p.otr = true, p.impl, p.tr
	p.rows, p.diverge, _ = align(p.tr, p.otr)
	if p.diverge >= 0 {
		t.Fatalf("a trace differs from itself at row %d", p.diverge)
	}
	m, _ = press(m, "d")
	if v := m.View(); !strings.Contains(v, "never differ") {
		t.Errorf("d without a divergence said nothing:\n%s", v)
	}
}

// The client panel: one symbol, one meaning. A crashed client is only
// crashed; a paused process says PAUSED, not the scheduler's ⏸; the help's
// legend explains them.
func TestClientPanelWords(t *testing.T) {
	st := NewStyles()
	tr := &trace.Trace{Events: []trace.Event{{Snap: trace.Snapshot{Clients: []trace.ClientState{
		{Name: "A", Belief: trace.BeliefHolds, Token: "A#1", Crashed: true},
		{Name: "B", Belief: trace.BeliefHolds, Token: "B#1", Paused: true},
		{Name: "C", Belief: trace.BeliefWaiting, Held: true},
	}}}}}
	got := strings.Join(clientLines(st, "en", tr, 0), "\n")
	for _, want := range []string{"A crashed", "B holds B#1 PAUSED", "C waiting ⏸ parked"} {
		if !strings.Contains(got, want) {
			t.Errorf("client panel lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "A holds") {
		t.Errorf("a crashed client still holds:\n%s", got)
	}
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "?")
	for _, want := range []string{"PAUSED its whole process stopped", "⏸ parked by the scheduler", "○ expired"} {
		if !strings.Contains(m.View(), want) {
			t.Errorf("the legend lacks %q", want)
		}
	}
}

// The teacher's controls: open at a step, stop autoplay at each violation,
// and hide what is still to come.
func TestTeacherControls(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del", Step: 20})
	if m.player.step != 20 {
		t.Errorf("--step 20 opened at %d", m.player.step)
	}
	m = player(t, Options{Scenario: "get-then-del", Step: 10000})
	if m.player.step != len(m.player.tr.Events)-1 {
		t.Errorf("a step past the end opened at %d", m.player.step)
	}

	m = player(t, Options{Scenario: "get-then-del", StopAtViolation: true, Autoplay: true})
	first := -1
	for i, e := range m.player.tr.Events {
		if e.Kind == trace.KindViolation {
			first = i
			break
		}
	}
	for i := 0; i < 200 && m.player.playing; i++ {
		m = send(m, tickMsg{m.player.gen})
	}
	if m.player.playing || m.player.step != first {
		t.Errorf("autoplay with stop-at-violation: step %d, playing %v; want a stop at %d", m.player.step, m.player.playing, first)
	}
	if !strings.Contains(m.View(), "stops at ✗") {
		t.Error("the header does not say autoplay stops at violations")
	}
	m, _ = press(m, "s")
	if m.player.stopAt {
		t.Error("s did not switch stop-at-violation off")
	}

	m = player(t, Options{Scenario: "get-then-del", NoSpoilers: true})
	v := m.View()
	if strings.Contains(v, "holds") || strings.Count(v, "│wants") > 0 {
		t.Errorf("no-spoilers shows what comes next:\n%s", v)
	}
	s := newTest(t, Options{NoSpoilers: true}, 80, 24)
	if v := s.View(); strings.Contains(v, "Expected to break") || !strings.Contains(v, "spoilers off") {
		t.Errorf("no-spoilers start screen shows the expectation:\n%s", v)
	}
}
