package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// Issue #28 item 7: the start screen moves to a failure mode's own
// implementation, as list and --scenario do.
func TestStartMovesToTheLessonsImpl(t *testing.T) {
	m := newTest(t, Options{}, 80, 24)
	i := slices.IndexFunc(m.start.scs, func(s scenarios.Scenario) bool { return s.ID == "gc-pause" })
	for range i {
		m, _ = press(m, "down")
	}
	s, impl := m.start.selected()
	if s.ID != "gc-pause" || impl != s.Naive || s.Naive != "uuid-lua-watchdog" {
		t.Errorf("on gc-pause the start screen selects %s × %s, want gc-pause × uuid-lua-watchdog", s.ID, impl)
	}
	if v := m.View(); !strings.Contains(v, "gc-pause × uuid-lua-watchdog") {
		t.Errorf("the start screen does not show gc-pause's own implementation:\n%s", v)
	}
	m, _ = press(m, "enter")
	if m.player.impl != "uuid-lua-watchdog" {
		t.Errorf("enter on gc-pause opened %s", m.player.impl)
	}
	// --impl without --scenario: the implementation asked for stays.
	m = newTest(t, Options{Impl: "fenced"}, 80, 24)
	m, _ = press(m, "down", "down")
	if _, impl := m.start.selected(); impl != "fenced" {
		t.Errorf("--impl fenced, then down: %s", impl)
	}
	// In a course: the course's implementation for the lesson.
	c := course(t, "course C\nlesson setnx-no-ex\nlesson get-then-del impls=uuid-lua,uuid-get-del\n")
	m = newTest(t, Options{Course: c}, 80, 24)
	m, _ = press(m, "esc", "down")
	if s, impl := m.start.selected(); s.ID != "get-then-del" || impl != "uuid-lua" {
		t.Errorf("in a course, down: %s × %s, want get-then-del × uuid-lua", s.ID, impl)
	}
}

// Issue #28 item 7: esc shows on the start screen the implementation the
// player switched to.
func TestBackKeepsTheSwitchedImpl(t *testing.T) {
	m := player(t, Options{Scenario: "get-then-del"})
	m, _ = press(m, "i")
	switched := m.player.impl
	m, _ = press(m, "esc")
	if s, impl := m.start.selected(); s.ID != "get-then-del" || impl != switched {
		t.Errorf("esc after i: the start screen selects %s × %s, want get-then-del × %s", s.ID, impl, switched)
	}
	if v := m.View(); !strings.Contains(v, "get-then-del × "+switched) {
		t.Errorf("the start screen does not show %s:\n%s", switched, v)
	}
}

// Issue #28 item 7: during a course the header says which lesson of how
// many.
func TestCourseHeaderSaysTheLesson(t *testing.T) {
	c := course(t, "course C\nlesson setnx-no-ex\nlesson get-then-del\nlesson gc-pause\n")
	m := newTest(t, Options{Course: c}, 80, 24)
	head := func(m Model) string { return strings.Split(m.View(), "\n")[0] }
	if h := head(m); !strings.Contains(h, "lesson 1/3") {
		t.Errorf("header %q lacks lesson 1/3", h)
	}
	m, _ = press(m, "G", "right")
	if h := head(m); !strings.Contains(h, "lesson 2/3") {
		t.Errorf("header %q lacks lesson 2/3", h)
	}
	m, _ = press(m, "c")
	if h := head(m); !strings.Contains(h, "lesson 2/3") {
		t.Errorf("compare header %q lacks lesson 2/3", h)
	}
	m, _ = press(m, "c", "L")
	if h := head(m); !strings.Contains(h, "第 2/3 课") {
		t.Errorf("header %q lacks 第 2/3 课", h)
	}
	// Outside a course, no lesson count.
	if h := head(player(t, Options{Scenario: "get-then-del"})); strings.Contains(h, "lesson") {
		t.Errorf("header %q outside a course", h)
	}
}
