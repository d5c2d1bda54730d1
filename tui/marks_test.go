package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Issue #28 item 12: a command a server refused has a mark of its own in
// the compact Redlock lane, which the legend explains.
func TestCompactLaneMarksRefusals(t *testing.T) {
	m := player(t, Options{Scenario: "redlock-restart", Impl: "redlock"})
	tr := m.player.tr
	found := false
	for i, e := range tr.Events {
		if e.Kind != trace.KindCommand || e.Reply != "(nil)" {
			continue
		}
		j := slices.Index(tr.Servers, e.Server)
		marks := []rune(serverMarks(tr, i, laneCells(tr, i, "en")))
		mark := marks[len(serversLane)+2*j+1]
		found = true
		if mark == '·' || mark == ' ' {
			t.Fatalf("event %d (%s → %s): mark %q", i, e.Command, e.Reply, mark)
		}
		for _, lang := range []string{"en", "zh"} {
			if !strings.Contains(legend.In(lang), string(mark)+" ") {
				t.Errorf("the %s legend does not explain %q", lang, mark)
			}
		}
	}
	if !found {
		t.Fatal("redlock-restart × redlock has no refused SET NX")
	}
}

// Issue #28 item 12: the client panel does not say "holds … held".
func TestClientPanelHeldWording(t *testing.T) {
	tr := &trace.Trace{Events: []trace.Event{{Snap: trace.Snapshot{Clients: []trace.ClientState{
		{Name: "A", Belief: trace.BeliefHolds, Token: "A#1", Held: true},
	}}}}}
	got := strings.Join(clientLines(NewStyles(), "en", tr, 0), "\n")
	if !strings.Contains(got, "A holds A#1 ⏸") || strings.Contains(got, "held") {
		t.Errorf("client panel: %q", got)
	}
}

// Issue #28 item 12: while playing, the footer offers space to pause.
func TestFooterSaysPauseWhilePlaying(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		play, pause := "space play", "space pause"
		if lang == "zh" {
			play, pause = "space 播放", "space 暂停"
		}
		m := player(t, Options{Scenario: "get-then-del", Lang: lang})
		if foot := footer(m.View()); !strings.Contains(foot, play) {
			t.Errorf("%s paused: footer %q lacks %q", lang, foot, play)
		}
		m, _ = press(m, "space")
		if foot := footer(m.View()); !strings.Contains(foot, pause) || strings.Contains(foot, play) {
			t.Errorf("%s playing: footer %q, want %q", lang, foot, pause)
		}
		m, _ = press(m, "c")
		if foot := footer(m.View()); !strings.Contains(foot, pause) {
			t.Errorf("%s playing in compare mode: footer %q, want %q", lang, foot, pause)
		}
	}
}
