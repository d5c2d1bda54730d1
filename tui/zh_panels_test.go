package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Issue #28 item 18: in Chinese the panels speak Chinese — a server's role
// (primary, replica), a key without a TTL, the stock's lane — at every
// step of cells that show each, wide and narrow.
func TestChinesePanelsHaveNoEnglishWords(t *testing.T) {
	english := regexp.MustCompile(`\b(primary|replica|no TTL|stock|down)\b`)
	for _, c := range []struct{ scenario, impl string }{
		{"failover", "set-nx-ex"},
		{"setnx-no-ex", "setnx"},
		{"oversell", "no-lock"},
		{"redlock-restart", "redlock"},
	} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			m := newTest(t, Options{Scenario: c.scenario, Impl: c.impl, Lang: "zh"}, size[0], size[1])
			for i := 0; i <= len(m.player.tr.Events); i++ {
				// The keys' names and the commands are Redis's own words.
				view := strings.ReplaceAll(m.View(), m.player.tr.Key, "")
				view = regexp.MustCompile(`stock:product:\d+`).ReplaceAllString(view, "")
				// A raw error may stand in parentheses (scenarios'
				// TestChineseTerms).
				view = regexp.MustCompile(`（[^（）]*）`).ReplaceAllString(view, "")
				for _, l := range strings.Split(view, "\n") {
					if w := english.FindString(l); w != "" && !regexp.MustCompile(`redis-\d> `).MatchString(l) {
						t.Fatalf("%s × %s at %dx%d, step %d: %q says %q", c.scenario, c.impl, size[0], size[1], m.player.step, l, w)
					}
				}
				m = send(m, tea.KeyMsg{Type: tea.KeyRight})
			}
		}
	}
}
