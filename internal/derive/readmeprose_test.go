package derive

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// The README's prose under its matrix says what the matrix shows, by
// implementation name, and each statement holds against the lessons'
// expect rows for the implementations the matrix's key lists (issue #41
// item 13: "only `fenced`" keeps gc-pause's data, where redlock-fenced and
// fenced-no-tag do too; "`redlock-delayed-restart` is all dashes", where
// no-lock and local-mutex break mutex and resource). A column number the
// prose gives beside a name is that name's in the key.
func TestReadmeMatrixProseIsTheMatrix(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	columns := map[string]int{} // the matrix key's: "1 no-lock · 2 local-mutex …"
	for _, m := range regexp.MustCompile(`(?m)(?:^|· )(\d+) ([a-z][a-z0-9-]*)`).FindAllStringSubmatch(doc, -1) {
		if _, seen := columns[m[2]]; !seen {
			columns[m[2]], _ = strconv.Atoi(m[1])
		}
	}
	from := strings.Index(doc, "Reading a column:")
	if from < 0 || len(columns) == 0 {
		t.Fatal("the README has no matrix key or no prose under its matrix")
	}
	prose := doc[from : from+strings.Index(doc[from:], "\n## ")]
	names := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile("`([a-z][a-z0-9-]*)`").FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	expect := func(lesson string, want func([]string) bool) []string {
		s, err := scenarios.Lookup(lesson)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for impl := range columns {
			if broken, ok := s.Expected(impl); ok && want(broken) {
				out = append(out, impl)
			}
		}
		slices.Sort(out)
		return out
	}
	keepers := regexp.MustCompile(`(?s)only the locks with a fencing token the store\s+checks — (.*?) — keep the data`).FindStringSubmatch(prose)
	if keepers == nil {
		t.Error("the README's prose does not name the locks that keep gc-pause's data right")
	} else if got, want := names(keepers[1]), expect("gc-pause", func(b []string) bool {
		return slices.Contains(b, "mutex") && !slices.Contains(b, "resource")
	}); !slices.Equal(got, want) {
		t.Errorf("the README names %v as keeping gc-pause's data right; the matrix has %v", got, want)
	}
	dashes := regexp.MustCompile("(?s)`redlock-delayed-restart` is all dashes but for (.*?), which").FindStringSubmatch(prose)
	if dashes == nil {
		t.Error("the README's prose does not say which columns of redlock-delayed-restart break")
	} else if got, want := names(dashes[1]), expect("redlock-delayed-restart", func(b []string) bool { return len(b) > 0 }); !slices.Equal(got, want) {
		t.Errorf("the README says redlock-delayed-restart breaks only under %v; the matrix has %v", got, want)
	}
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9-]*)` \\((\\d+)\\)").FindAllStringSubmatch(prose, -1) {
		if n, _ := strconv.Atoi(m[2]); columns[m[1]] != n {
			t.Errorf("the README's prose gives %s column %d; the key has %d", m[1], n, columns[m[1]])
		}
	}
}
