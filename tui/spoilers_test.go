package tui

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// course parses a course's source (built-in lessons only).
func course(t *testing.T, src string) *scenarios.Course {
	t.Helper()
	c, err := scenarios.ParseCourse("c.course", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Issue #28 item 6: "spoilers off" in a course means what --no-spoilers
// means: the player too keeps the rows below the cursor blank, in every
// lesson of the course and in compare mode.
func TestCourseSpoilersOffHidesWhatComes(t *testing.T) {
	c := course(t, "course Quiz\nspoilers off\nlesson setnx-no-ex\nlesson get-then-del\n")
	m := newTest(t, Options{Course: c}, 80, 24)
	if v := m.View(); strings.Contains(v, "│wants") || strings.Contains(v, "holds") {
		t.Errorf("a spoiler-free course shows what comes next:\n%s", v)
	}
	m, _ = press(m, "G", "right")
	if m.player.scenario.ID != "get-then-del" {
		t.Fatalf("→ at the end opened %s", m.player.scenario.ID)
	}
	if v := m.View(); strings.Contains(v, "│wants") {
		t.Errorf("the course's second lesson shows what comes next:\n%s", v)
	}
	m, _ = press(m, "c")
	if v := m.View(); strings.Contains(v, "SET NX") {
		t.Errorf("compare mode shows what comes next:\n%s", v)
	}
	// A course with spoilers shows them.
	c = course(t, "course Lecture\nlesson get-then-del\n")
	if v := newTest(t, Options{Course: c}, 80, 24).View(); !strings.Contains(v, "│wants") {
		t.Errorf("a course with spoilers hides the rows below the cursor:\n%s", v)
	}
}
