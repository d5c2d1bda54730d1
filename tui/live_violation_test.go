package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Issue #28 item 8: v in a live run before its first violation says that
// none has happened yet, not that every invariant holds.
func TestLiveViolationNotYet(t *testing.T) {
	m := New(Options{Scenario: "get-then-del", Impl: "uuid-get-del", Live: embeddedLive})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	defer m.player.close()
	m, _ = pump(t, m, m.Init())
	m, _ = press(m, "v")
	v := m.View()
	if strings.Contains(v, "every invariant holds") || !strings.Contains(v, "no violation has happened yet") {
		t.Errorf("v before the first violation of a live run:\n%s", v)
	}
	m, _ = press(m, "L", "v")
	if v := m.View(); !strings.Contains(v, "还没有发生违规") {
		t.Errorf("in Chinese:\n%s", v)
	}
}
