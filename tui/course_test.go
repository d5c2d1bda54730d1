package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// runCmds runs what the model asked for (traces to load) and hands it the
// answers, until it asks for nothing more.
func runCmds(m Model, cmd tea.Cmd) Model {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case traceMsg:
			next, more := m.Update(msg)
			m = next.(Model)
			queue = append(queue, more)
		}
	}
	return m
}

// myLesson is an instructor's copy of get-then-del with a fourth client.
func myLesson(t *testing.T) scenarios.Scenario {
	t.Helper()
	b, _ := scenarios.Lookup("get-then-del")
	src := strings.Replace(string(b.Source), "lesson get-then-del", "lesson my-get-then-del", 1)
	src = strings.Replace(src, "client C start=2s retry=10s work=5s\n", "client C start=2s retry=10s work=5s\nclient D start=3s retry=10s work=5s\n", 1)
	s, err := scenarios.ParseLesson("mine.lesson", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An instructor's lessons are listed after the built-in ones and play.
func TestStartListsTheUsersLessons(t *testing.T) {
	mine := myLesson(t)
	m := newTest(t, Options{Lessons: []scenarios.Scenario{mine}}, 120, 40)
	ids := m.start.scs
	if last := ids[len(ids)-1]; last.ID != "my-get-then-del" || len(ids) != len(scenarios.All())+1 {
		t.Fatalf("start lists %d lessons, the last %s", len(ids), last.ID)
	}
	for range ids[:len(ids)-1] {
		m, _ = press(m, "down")
	}
	m, cmd := press(m, "enter")
	m = runCmds(m, cmd)
	if !m.player.ready() || !strings.Contains(m.View(), "my-get-then-del × ") || !strings.Contains(m.View(), "│D ") {
		t.Errorf("the player on the user's lesson:\n%s", m.View())
	}
}

// A course: its lessons only, in its order, its language; the player opens
// on the first lesson at its step; → past the last step opens the next
// lesson, ← before the first the previous one; the start screen does not
// spoil the verdict.
func TestCourse(t *testing.T) {
	mine := myLesson(t)
	src := "course Week 3\nlang zh\nspoilers off\nlessons mine\nlesson setnx-no-ex\nlesson get-then-del impls=uuid-get-del,uuid-lua step=20\nlesson my-get-then-del\n"
	c, err := scenarios.ParseCourse("week3.course", []byte(src), func(string) ([]scenarios.Scenario, error) {
		return []scenarios.Scenario{mine}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m := newTest(t, Options{Course: c}, 120, 40)
	if m.lang != "zh" || m.screen != screenPlayer || m.player.scenario.ID != "setnx-no-ex" {
		t.Fatalf("course opens: lang %s, screen %s, lesson %s", m.lang, m.screen, m.player.scenario.ID)
	}
	m, _ = press(m, "G", "right")
	if m.player.scenario.ID != "get-then-del" || m.player.impl != "uuid-get-del" || m.player.pos() != 20 {
		t.Fatalf("→ at the end: %s × %s at step %d, want get-then-del × uuid-get-del at 20", m.player.scenario.ID, m.player.impl, m.player.pos())
	}
	// i switches among the course's implementations only.
	m, _ = press(m, "i")
	if m.player.impl != "uuid-lua" {
		t.Errorf("i: %s, want uuid-lua", m.player.impl)
	}
	m, _ = press(m, "g", "left")
	if m.player.scenario.ID != "setnx-no-ex" {
		t.Errorf("← at the start: %s, want setnx-no-ex", m.player.scenario.ID)
	}
	m, _ = press(m, "G", "right", "G")
	m, cmd := press(m, "right")
	m = runCmds(m, cmd)
	if m.player.scenario.ID != "my-get-then-del" || !m.player.ready() {
		t.Errorf("the course's own lesson: %s, ready %v", m.player.scenario.ID, m.player.ready())
	}
	m, _ = press(m, "esc")
	view := m.View()
	if len(m.start.scs) != 3 || !strings.Contains(view, "不显示（防剧透）") || strings.Contains(view, "预期被破坏") {
		t.Errorf("start screen of a spoiler-free course (%d lessons):\n%s", len(m.start.scs), view)
	}
}
