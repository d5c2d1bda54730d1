package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
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
	waitFor("Failure mode")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	// The start screen names the pair too; "step 1/" is the player's, once
	// the trace has arrived (keys are ignored while it loads).
	waitFor("step 1/")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")})
	waitFor("get-then-del × setnx-expire")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(Model)
	if final.screen != screenPlayer || final.player.impl != "setnx-expire" {
		t.Errorf("final model: screen %s, impl %s", final.screen, final.player.impl)
	}
}
