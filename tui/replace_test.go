package tui

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// Issue #28 item 20: a lesson file with a built-in's id takes the built-in's
// place in the TUI too — once in the list, its own texts — and the start
// screen says which file it comes from.
func TestStartScreenSaysALessonReplacesABuiltin(t *testing.T) {
	b, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b.Source), "    en GET-then-DEL: the check and the delete are two commands", "    en My GET-then-DEL", 1)
	mine, err := scenarios.ParseLesson("mine/030.lesson", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	mine.File, mine.Source = "mine/030.lesson", []byte(src)
	for _, lang := range []string{"en", "zh"} {
		m := newTest(t, Options{Lessons: []scenarios.Scenario{mine}, Lang: lang}, 120, 40)
		n := 0
		for _, s := range m.start.scs {
			if s.ID == "get-then-del" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: get-then-del listed %d times", lang, n)
		}
		for m.start.scs[m.start.sc].ID != "get-then-del" {
			m = send(m, keyMsg("down"))
		}
		want := "from mine/030.lesson, in place of the built-in lesson"
		if lang == "zh" {
			want = "来自 mine/030.lesson，替换了同名的内置课程"
		}
		if v := m.View(); !strings.Contains(v, want) || lang == "en" && !strings.Contains(v, "My GET-then-DEL") {
			t.Errorf("%s start screen:\n%s", lang, v)
		}
	}
}
