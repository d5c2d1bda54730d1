package web

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// The self-check's links lead to the lessons' pages, in both languages;
// a lesson the English names and the Chinese does not is said above the
// Chinese.
func TestSelfCheckPage(t *testing.T) {
	en, err := os.ReadFile("../docs/self-check.md")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := scenarios.Lookup("get-then-del")
	// As report/selfcheck.go has it (internal/cli/site_test.go checks the site's).
	zh := "<!-- 由 `go run . docs --lang zh DIR` 生成 -->\n\n# 自查清单\n\n| 3 | 释放 | 误删 | [`get-then-del`](get-then-del.md) |\n"
	page := selfCheckPage(string(en), zh, []scenarios.Scenario{s})
	zhPart := page[strings.Index(page, `<div lang="zh-Hans"`):]
	for _, part := range []string{page[:len(page)-len(zhPart)], zhPart} {
		if !strings.Contains(part, `<a href="get-then-del.html">`) || regexp.MustCompile(`href="[^"]*\.md"|&lt;!--`).MatchString(part) {
			t.Errorf("the self-check's links do not lead to the lessons' pages:\n%.300s", part)
		}
	}
	if got := behind("[a](get-then-del.md) [b](new-lesson.md) [c](new-lesson.md)", zh); !strings.Contains(got, "<code>new-lesson</code> 等课程") || strings.Contains(got, "get-then-del") {
		t.Errorf("a lesson missing from the Chinese: %q", got)
	}
	if got := behind("[a](get-then-del.md)", zh); got != "" {
		t.Errorf("nothing missing, yet %q", got)
	}
}
