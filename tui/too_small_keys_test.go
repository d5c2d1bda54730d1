package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Issue #37 item 13: behind the "needs 64×20" screen the keys do nothing
// but quit; when the terminal grows again, the screen is as it was. Before,
// enter opened a player no one could see, and the other keys moved the
// cursors, switched the language, opened the sandbox.
func TestKeysBehindTheTooSmallScreen(t *testing.T) {
	// w saves a trace (it must not): not in the user's directory.
	t.Setenv("LOCKSTEP_SANDBOX_DIR", t.TempDir())
	keys := []string{"enter", "down", "tab", "x", "L", "?", "esc", "right", "v", "c", "space", "G", "i", "1", "w", "f", "xenter"}
	for name, m := range map[string]Model{
		"start":   newTest(t, Options{}, 80, 24),
		"player":  newTest(t, Options{Scenario: "get-then-del"}, 80, 24),
		"sandbox": sandbox(t, "uuid-get-del", 80, 24),
	} {
		before := m.View()
		screen := m.screen
		m = send(m, tea.WindowSizeMsg{Width: 50, Height: 15})
		small := m.View()
		for _, k := range keys {
			var cmd tea.Cmd
			m, cmd = press(m, k)
			if cmd != nil {
				t.Errorf("%s: %q behind the too-small screen gave a command (%T)", name, k, cmd())
			}
			if v := m.View(); v != small {
				t.Errorf("%s: %q changed the too-small screen:\n%s", name, k, v)
				small = v
			}
		}
		m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		if m.screen != screen || m.showHelp {
			t.Errorf("%s: after the keys, screen %s (help %v)", name, m.screen, m.showHelp)
		}
		if after := m.View(); after != before {
			t.Errorf("%s: the screen moved behind the too-small one:\n--- before\n%s\n--- after\n%s", name, before, after)
		}
		for _, k := range []string{"q", "ctrl+c"} {
			small := send(m, tea.WindowSizeMsg{Width: 50, Height: 15})
			if _, cmd := press(small, k); cmd == nil {
				t.Errorf("%s: %s does not quit behind the too-small screen", name, k)
			} else if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Errorf("%s: %s behind the too-small screen gave %T, not quit", name, k, cmd())
			}
		}
		m.sandbox.close()
	}
}
