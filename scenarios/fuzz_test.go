package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/text"
)

// FuzzParseLesson: whatever bytes a lesson file holds, ParseLesson either
// refuses them with an error that prints safely (one line, no control or
// invisible character) or gives a lesson none of whose texts has one (a
// story keeps its newlines and tabs: it is Markdown). A file it accepts
// had none either, but for tabs, line ends and a leading byte-order mark.
// The seeds are the built-in lessons and variants of one (a byte-order
// mark, CRLF, an escape in the title, retry=1ns); go test runs them every
// time, with any input that once failed (testdata/fuzz/FuzzParseLesson).
func FuzzParseLesson(f *testing.F) {
	for _, s := range All() {
		f.Add(s.Source)
	}
	src := string(getThenDelSource(f))
	for _, variant := range []string{
		"\ufeff" + src,
		strings.ReplaceAll(src, "\n", "\r\n"),
		strings.Replace(src, "    en GET-then-DEL:", "    en \x1b[2JGET-then-DEL:", 1),
		strings.Replace(src, "retry=10s", "retry=1ns", 1),
	} {
		f.Add([]byte(variant))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseLesson("fuzz.lesson", data)
		if err != nil {
			if bad := escapes(err.Error(), ""); bad != "" {
				t.Fatalf("the error has %s: %q", bad, err)
			}
			return
		}
		if bad := escapes(acceptedText(data), "\t\n"); bad != "" {
			t.Fatalf("accepted a file with %s", bad)
		}
		texts := []string{s.ID, s.Naive, s.FixImpl, s.Setup.Key, s.Title.EN, s.Title.ZH, s.Summary.EN, s.Summary.ZH}
		for impl := range s.Expect {
			texts = append(texts, impl)
		}
		for _, text := range texts {
			if bad := escapes(text, ""); bad != "" {
				t.Fatalf("a text with %s: %q", bad, text)
			}
		}
		for _, story := range []string{s.Story.EN, s.Story.ZH} {
			if bad := escapes(story, "\t\n"); bad != "" {
				t.Fatalf("a story with %s: %q", bad, story)
			}
		}
	})
}

// FuzzParseCourse is FuzzParseLesson for course files. The seeds are
// courses like the README's and the tests', good and bad.
func FuzzParseCourse(f *testing.F) {
	for _, src := range []string{
		"course Redis locks, week 3\nlang zh\nspeed 1\nspoilers off\nlessons ./mine\nlesson setnx-no-ex\nlesson get-then-del impls=uuid-get-del,uuid-lua step=7\nlesson my-get-then-del\n",
		"# a comment\ncourse Week 3\nlesson gc-pause\n\nlesson redlock-restart impls=redlock,redsync-redlock step=3\n",
		"\ufeffcourse\tBOM\r\nlang en\r\nlesson retries\r\n",
		"lesson nope\n",
		"speed 3\nlesson gc-pause\n",
	} {
		f.Add([]byte(src))
	}
	mine, err := ParseLesson("mine/my-get-then-del.lesson",
		[]byte(strings.Replace(string(getThenDelSource(f)), "lesson get-then-del", "lesson my-get-then-del", 1)))
	if err != nil {
		f.Fatal(err)
	}
	load := func(dir string) ([]Scenario, error) {
		if dir == "./mine" {
			return []Scenario{mine}, nil
		}
		return nil, nil
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCourse("fuzz.course", data, load)
		if err != nil {
			if bad := escapes(err.Error(), ""); bad != "" {
				t.Fatalf("the error has %s: %q", bad, err)
			}
			return
		}
		if bad := escapes(acceptedText(data), "\t\n"); bad != "" {
			t.Fatalf("accepted a file with %s", bad)
		}
		texts := append([]string{c.Title, c.Lang}, c.Dirs...)
		for _, e := range c.Entries {
			texts = append(texts, e.Lesson.ID)
			texts = append(texts, e.Impls...)
		}
		for _, text := range texts {
			if bad := escapes(text, ""); bad != "" {
				t.Fatalf("a text with %s: %q", bad, text)
			}
		}
	})
}

func getThenDelSource(tb testing.TB) []byte {
	tb.Helper()
	s, err := Lookup("get-then-del")
	if err != nil {
		tb.Fatal(err)
	}
	return s.Source
}

// acceptedText is a file as the parser reads it: without a leading
// byte-order mark, its lines ending in newlines only.
func acceptedText(data []byte) string {
	s := strings.TrimPrefix(string(data), "\ufeff")
	return strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\r")
}

// escapes names the first character of s that CleanText would escape,
// other than those in allowed, or a byte that is not UTF-8; "" when there
// is none.
func escapes(s, allowed string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return fmt.Sprintf("byte %#x, not UTF-8, at %d", s[i], i)
			}
		}
		if text.Escaped(r) && !strings.ContainsRune(allowed, r) {
			return fmt.Sprintf("U+%04X at byte %d", r, i)
		}
	}
	return ""
}
