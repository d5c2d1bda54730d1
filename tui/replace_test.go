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

// Issue #37 item 5: a lesson file's name is the user's; escape codes in it
// (ESC[2J, an OSC 52 clipboard write, BEL, U+202E) show as visible escapes
// on the start screen and in the note that it replaces a built-in lesson,
// never raw.
func TestReplacingLessonsNameIsShownClean(t *testing.T) {
	b, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	name := "mine/\x1b[2J\x1b]52;c;aGk=\a\u202e.lesson"
	name = strings.NewReplacer(`\x1b`, "\x1b", `\a`, "\a", `\u202e`, "\u202e").Replace(name)
	mine, err := scenarios.ParseLesson(name, b.Source)
	if err != nil {
		t.Fatal(err)
	}
	mine.File, mine.Source = name, b.Source
	for _, shown := range []string{mine.ReplaceNote(), viewOn(t, mine)} {
		if strings.Contains(shown, "\x1b[2J") || strings.Contains(shown, "\x1b]52") || strings.ContainsAny(shown, "\a\u202e") {
			t.Errorf("the file's name reaches the terminal raw: %q", shown)
		}
		if !strings.Contains(shown, `mine/\x1b[2J\x1b]52;c;aGk=\x07\u202e.lesson`) {
			t.Errorf("the file's name is not shown escaped: %q", shown)
		}
	}
}

// viewOn is the start screen with lesson mine selected.
func viewOn(t *testing.T, mine scenarios.Scenario) string {
	t.Helper()
	m := newTest(t, Options{Lessons: []scenarios.Scenario{mine}, Lang: "en"}, 200, 40)
	for m.start.scs[m.start.sc].ID != mine.ID {
		m = send(m, keyMsg("down"))
	}
	return m.View()
}
