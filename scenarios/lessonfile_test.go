package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// A lesson's text reaches terminals as it is written, in the TUI, in play
// and in the pages of docs/: a title with \x1b[2J once cleared the screen
// (#26). The parser refuses a control character (tab aside) anywhere in
// the file, and the invisible characters a terminal would let reorder or
// hide text (bidi controls, zero-width characters), naming line, column
// and character.
func TestLessonControlCharacters(t *testing.T) {
	// The story follows the expect block, which grows a line with every
	// implementation: its line is counted, not written down.
	story := strings.Count(strings.Split(string(getThenDel(t).Source), "`uuid-get-del` releases")[0], "\n") + 1
	for _, tc := range []struct {
		name, old, new string
		pos, want      string
	}{
		{"an escape in the title", "    en GET-then-DEL:", "    en \x1b[2JGET-then-DEL:", "6:8", "control character U+001B"},
		{"a bell in the key", "client A work=29s", "setup key=lock\x1b]0;x\x07\nclient A work=29s", "15:15", "control character U+001B"},
		{"an escape in a client's name", "client A work=29s", "client A\x1b[31m work=29s", "15:9", "control character U+001B"},
		{"an 8-bit CSI in the summary", "    en A's release", "    en A's\u009b2J release", "9:11", "control character U+009B"},
		{"DEL in a comment", "# lockstep lesson file", "# lockstep\x7f lesson file", "1:11", "control character U+007F"},
		{"a carriage return inside a line", "    en A goes on", "    en A\rgoes on", "28:9", "control character U+000D"},
		{"an escape in the story", "`uuid-get-del` releases", "`uuid-get-del`\x1b[2J releases", fmt.Sprintf("%d:15", story), "control character U+001B"},
		{"a right-to-left override in the title", "    en GET-then-DEL:", "    en \u202eGET-then-DEL:", "6:8", "invisible character U+202E"},
		{"a zero-width space in a client's name", "client A work=29s", "client A\u200b work=29s", "15:9", "invisible character U+200B"},
		{"a byte-order mark inside the file", "lesson get-then-del", "\ufefflesson get-then-del", "3:1", "invisible character U+FEFF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := wantLessonError(t, lessonWith(t, tc.old, tc.new), tc.pos, tc.want)
			if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x9b || r == 0x202e }) {
				t.Errorf("the error quotes the character raw: %q", err)
			}
		})
	}
	// The same in a course.
	none := func(string) ([]Scenario, error) { return nil, nil }
	for src, want := range map[string]string{
		"course Week\x1b[2J 3\nlesson gc-pause\n": "c.course:1:12: control character U+001B",
		"course Week \u2066 3\nlesson gc-pause\n": "c.course:1:13: invisible character U+2066",
	} {
		if _, err := ParseCourse("c.course", []byte(src), none); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseCourse(%q): %v, want %q", src, err, want)
		}
	}
}

// A tab is white space: between fields, as indentation, and inside a text
// (a title, a summary, what a say line says), where it becomes a space,
// since a text is shown on one line. Lines may end in CRLF.
func TestLessonTabsAndCRLF(t *testing.T) {
	src := lessonWith(t, "    en GET-then-DEL: the check", "\ten GET-then-DEL:\tthe check")
	src = []byte(strings.Replace(string(src), "client A work=29s", "client\tA\twork=29s", 1))
	s, err := ParseLesson("mine.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	if want := "GET-then-DEL: the check and the delete are two commands"; s.Title.EN != want {
		t.Errorf("title %q, want %q", s.Title.EN, want)
	}
	crlf := strings.ReplaceAll(string(lessonWith(t, "lesson get-then-del", "lesson crlf")), "\n", "\r\n")
	c, err := ParseLesson("crlf.lesson", []byte(crlf))
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != s.Title || c.Story.EN != getThenDel(t).Story.EN {
		t.Errorf("with CRLF: title %q, story %q…", c.Title, c.Story.EN[:40])
	}
}

// A file saved with a byte-order mark (as some Windows editors do) parses
// as if it had none; before, it gave "1:1: want lesson" (#26).
func TestByteOrderMark(t *testing.T) {
	b := getThenDel(t)
	s, err := ParseLesson("bom.lesson", append([]byte("\ufeff"), b.Source...))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != b.ID || s.Title != b.Title || s.Story != b.Story {
		t.Errorf("with a BOM: %s %q, want %s %q", s.ID, s.Title, b.ID, b.Title)
	}
	c, err := ParseCourse("bom.course", []byte("\ufeffcourse Week 3\nlesson gc-pause\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Week 3" || len(c.Entries) != 1 {
		t.Errorf("course %+v", c)
	}
}

// A line is split into its fields in one pass: a word of 900 KB once took
// 216 s (#26), each character copying the field so far. A word of 1 MB
// (500,000 two-byte characters), alone and in a lesson, is split at once;
// BenchmarkSplitLine shows the time.
func TestSplitLineLongWord(t *testing.T) {
	word := strings.Repeat("é", 500_000)
	l := splitLine(7, "  "+word+"\tx ")
	if len(l.fields) != 2 || l.fields[0] != word || l.fields[1] != "x" || l.cols[0] != 3 || l.cols[1] != 500_004 || !l.indent {
		t.Fatalf("fields of %d and %d bytes at columns %v, indent %v", len(l.fields[0]), len(l.fields[len(l.fields)-1]), l.cols, l.indent)
	}
	if got := l.rest(1); got != "x" {
		t.Errorf("rest(1) = %q", got)
	}
	// In a lesson: a comment of one long word is skipped; an id of one
	// is refused, at its column.
	src := lessonWith(t, "# lockstep lesson file: docs/lessons.md describes the format.", "#"+word)
	if _, err := ParseLesson("long.lesson", src); err != nil {
		t.Errorf("a long comment: %v", err)
	}
	_, err := ParseLesson("long.lesson", lessonWith(t, "lesson get-then-del", "lesson "+strings.Repeat("a", 1_000_000)))
	if err == nil || !strings.HasPrefix(err.Error(), "long.lesson:3:8: want \"lesson ID\"") || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("a long id: %.200v", err)
	}
}

// A text may go on over many en and zh lines; joining them is linear too.
func TestLongText(t *testing.T) {
	const n = 50_000
	more := strings.Repeat("    en a\n", n) + strings.Repeat("    zh 字\n", n)
	s, err := ParseLesson("long.lesson", lessonWith(t, "summary\n", "summary\n"+more))
	if err != nil {
		t.Fatal(err)
	}
	orig := getThenDel(t).Summary
	if !strings.HasPrefix(s.Summary.EN, "a a ") || !strings.HasSuffix(s.Summary.EN, " "+orig.EN) || len(s.Summary.EN) != 2*n+len(orig.EN) {
		t.Errorf("summary of %d bytes", len(s.Summary.EN))
	}
	if !strings.HasSuffix(s.Summary.ZH, "字"+orig.ZH) || utf8.RuneCountInString(s.Summary.ZH) != n+utf8.RuneCountInString(orig.ZH) {
		t.Errorf("Chinese summary of %d characters", utf8.RuneCountInString(s.Summary.ZH))
	}
}

func getThenDel(t *testing.T) Scenario {
	t.Helper()
	s, err := Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkSplitLine splits a line of one word of 1 MB (the most a lesson
// file holds): linear, a few milliseconds; it was minutes.
func BenchmarkSplitLine(b *testing.B) {
	line := strings.Repeat("é", 500_000)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if l := splitLine(1, line); len(l.fields) != 1 {
			b.Fatal(len(l.fields))
		}
	}
}

// BenchmarkParseLesson parses a built-in lesson.
func BenchmarkParseLesson(b *testing.B) {
	s, _ := Lookup("get-then-del")
	b.SetBytes(int64(len(s.Source)))
	for b.Loop() {
		if _, err := ParseLesson(s.File, s.Source); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue #28 item 3: a comment may end any line but a text (an indented en
// or zh line) and the story, where # is text. get-then-del with a comment
// at the end of each directive and expect line is the same lesson: the
// same texts, and the same trace against an implementation; a # inside a
// text stays. Course files take the same comments.
func TestEndOfLineComments(t *testing.T) {
	b := getThenDel(t)
	var out []string
	story := false
	for _, raw := range strings.Split(strings.TrimSuffix(string(b.Source), "\n"), "\n") {
		l := splitLine(0, raw)
		story = story || len(l.fields) == 2 && l.fields[0] == "story"
		switch {
		case story && len(l.fields) == 2 && l.fields[0] == "story":
			out = append(out, raw+"   # the story: the rest of the file")
		case story, len(l.fields) == 0, strings.HasPrefix(l.fields[0], "#"):
			out = append(out, raw)
		case l.isText():
			out = append(out, raw+" #1")
		default:
			out = append(out, raw+"\t# a note, with # and key=value in it")
		}
	}
	s, err := ParseLesson("commented.lesson", []byte(strings.Join(out, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Title.EN != b.Title.EN+" #1" || s.Summary.ZH != b.Summary.ZH+" #1" || s.Story != b.Story {
		t.Errorf("texts: title %q, summary %q", s.Title.EN, s.Summary.ZH)
	}
	impl, err := lockimpl.Lookup("uuid-get-del")
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.Run(impl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(impl)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(want.Events) || fmt.Sprint(got.Verdicts) != fmt.Sprint(want.Verdicts) {
		t.Errorf("commented: %d steps, verdicts %v; want %d, %v", len(got.Events), got.Verdicts, len(want.Events), want.Verdicts)
	}
	for _, ex := range []string{"uuid-get-del", "uuid-lua"} {
		if g, _ := s.Expected(ex); fmt.Sprint(g) != fmt.Sprint(must(b.Expected(ex))) {
			t.Errorf("expect %s: %v", ex, g)
		}
	}
	c, err := ParseCourse("week3.course", []byte("course Redis locks, week 3   # its title\nspoilers off # hidden\nlesson gc-pause impls=fenced step=3 # the pause\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Redis locks, week 3" || c.Spoilers || c.Entries[0].Step != 3 || fmt.Sprint(c.Entries[0].Impls) != "[fenced]" {
		t.Errorf("course %+v", c)
	}
}

func must[T any](v T, _ bool) T { return v }
