package tui

import (
	"fmt"
	"strings"
	"testing"
)

// Issue #28 item 10: compare mode numbers as the player and play do, by
// step.
func TestCompareNumbersSteps(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "c", "d")
	p := m.player
	row := p.rows[p.diverge]
	if row.l != row.r || row.l < 0 {
		t.Fatalf("the divergence is at steps %d and %d", row.l, row.r)
	}
	head := strings.Split(m.View(), "\n")[0]
	if l, r := p.sides(); l != row.l || r != row.r {
		t.Fatalf("d: sides at steps %d and %d, want %d", l, r, row.l)
	}
	l := row.l
	for _, want := range []string{
		fmt.Sprintf("≠ from step %d", row.l),
		fmt.Sprintf("step %d ", l),
	} {
		if !strings.Contains(head, want) {
			t.Errorf("compare header %q lacks %q", head, want)
		}
	}
	if strings.Contains(head, "row") {
		t.Errorf("compare header %q numbers rows", head)
	}
	// The player at the same place shows the same step.
	m, _ = press(m, "c")
	if want := fmt.Sprintf("step %d/", row.l); !strings.Contains(strings.Split(m.View(), "\n")[0], want) {
		t.Errorf("leaving compare mode: header lacks %q:\n%s", want, m.View())
	}
	// A step one side has and the other has not: the sides' own steps.
	m, _ = press(m, "c", "right")
	l, r := m.player.sides()
	if want := fmt.Sprintf("steps %d vs %d", l, r); l == r || !strings.Contains(strings.Split(m.View(), "\n")[0], want) {
		t.Errorf("two rows past the divergence: header lacks %q:\n%s", want, m.View())
	}
	m, _ = press(m, "d", "L")
	if head := strings.Split(m.View(), "\n")[0]; !strings.Contains(head, fmt.Sprintf("≠ 始于第 %d 步", row.l)) {
		t.Errorf("Chinese compare header %q", head)
	}
}
