package web

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"lockstep/scenarios"
)

// The self-check's links lead to the lessons' pages, in both languages;
// a lesson the English names and the Chinese does not yet is said above
// the Chinese.
func TestSelfCheckPage(t *testing.T) {
	en, err := os.ReadFile("../docs/self-check.md")
	if err != nil {
		t.Fatal(err)
	}
	page := Site{SelfCheck: string(en)}.selfCheck(scenarios.All())
	zh := page[strings.Index(page, `<div lang="zh-Hans"`):]
	for _, part := range []string{page[:len(page)-len(zh)], zh} {
		if !strings.Contains(part, `<a href="get-then-del.html">`) || regexp.MustCompile(`href="[^"]*\.md"`).MatchString(part) {
			t.Errorf("the self-check's links do not lead to the lessons' pages:\n%.300s", part)
		}
	}
	if got := behind("[a](get-then-del.md) [b](new-lesson.md) [c](new-lesson.md)", selfCheckZH); !strings.Contains(got, "<code>new-lesson</code> 等课程") || strings.Contains(got, "get-then-del") {
		t.Errorf("a lesson missing from the Chinese: %q", got)
	}
	if got := behind("[a](get-then-del.md)", selfCheckZH); got != "" {
		t.Errorf("nothing missing, yet %q", got)
	}
}
