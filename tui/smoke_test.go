package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// The whole program, as a user meets it: the start screen, a scenario opened
// with enter, a step to the violation, quit. It waits on text, never sleeps.
func TestSmoke(t *testing.T) {
	tm := teatest.NewTestModel(t, New(Options{}), teatest.WithInitialTermSize(80, 24))
	waitFor := func(text string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	// Down twice: the third failure mode, with its own (naive)
	// implementation; i switches to the next one in the catalogue.
	scenario := scenarios.IDs()[2]
	impl := after(scenarios.All()[2].Naive, "")
	waitFor("Failure mode")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	// The start screen names the pair too; "step 0/" is the player's, once
	// the trace has arrived (keys pressed while it loads wait for it).
	waitFor("step 0/")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")})
	waitFor(scenario + " × " + impl)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(Model)
	if final.screen != screenPlayer || final.player.scenario.ID != scenario || final.player.impl != impl {
		t.Errorf("final model: screen %s, %s × %s, want %s × %s", final.screen, final.player.scenario.ID, final.player.impl, scenario, impl)
	}
}
