package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// longest is the cell with the most events.
func longest() (cell, int) {
	var best cell
	n := 0
	for c, tr := range allTraces() {
		if len(tr.Events) > n || len(tr.Events) == n && c.scenario+c.impl < best.scenario+best.impl {
			best, n = c, len(tr.Events)
		}
	}
	return best, n
}

// BenchmarkStep is one → and the redraw at 120×40. Target ≤ 2 ms.
func BenchmarkStep(b *testing.B) {
	c, n := longest()
	m := newTest(b, Options{Scenario: c.scenario, Impl: c.impl}, 120, 40)
	right := keyMsg("right")
	start := m
	for b.Loop() {
		next, _ := m.Update(right)
		m = next.(Model)
		_ = m.View()
		if m.player.step == len(m.player.tr.Events)-1 {
			m = start
		}
	}
	b.ReportMetric(float64(n), "events")
}

// BenchmarkStepBackAtEnd is ← from the last step of the longest trace, and
// the redraw at 120×40. Target ≤ 2 ms.
func BenchmarkStepBackAtEnd(b *testing.B) {
	c, n := longest()
	m, _ := press(newTest(b, Options{Scenario: c.scenario, Impl: c.impl}, 120, 40), "G")
	left := keyMsg("left")
	for b.Loop() {
		next, _ := m.Update(left)
		_ = next.(Model).View()
	}
	b.ReportMetric(float64(n), "events")
}

// BenchmarkCompareStep is one → in compare mode at 120×40.
func BenchmarkCompareStep(b *testing.B) {
	c, _ := longest()
	m, _ := press(newTest(b, Options{Scenario: c.scenario, Impl: c.impl}, 120, 40), "c")
	start := m
	for b.Loop() {
		next, _ := m.Update(keyMsg("right"))
		m = next.(Model)
		_ = m.View()
		if m.player.row == len(m.player.rows)-1 {
			m = start
		}
	}
}

var _ tea.Model = Model{}
