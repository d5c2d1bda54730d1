package web

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"lockstep/scenarios"
)

// The Chinese self-check links the same lessons as docs/self-check.md, so
// that an edit to one that the other misses shows.
func TestSelfCheckChineseLinksAsEnglish(t *testing.T) {
	en, err := os.ReadFile("../docs/self-check.md")
	if err != nil {
		t.Fatal(err)
	}
	links := func(md string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`\]\(([^)]*)\)`).FindAllStringSubmatch(md, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := links(string(en)), links(selfCheckZH); !slices.Equal(a, b) {
		t.Errorf("docs/self-check.md links %v,\nweb/selfcheck.zh.md %v", a, b)
	}
	page := Site{SelfCheck: string(en)}.selfCheck(scenarios.All())
	if !regexp.MustCompile(`<a href="get-then-del.html">`).MatchString(page) || regexp.MustCompile(`href="[^"]*\.md"`).MatchString(page) {
		t.Error("the self-check's links do not lead to the lessons' pages")
	}
}
