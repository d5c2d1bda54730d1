package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// The self-check's parts say the same in both languages where it can be
// checked: every text has its Chinese, every row as many cells as its
// table's head, and each part and cell links the same lessons, in the same
// order, in English and in Chinese, each a lesson that exists. Links are
// written [[ID]] only, so that this test sees them all.
func TestSelfCheckSaysTheSameInBothLanguages(t *testing.T) {
	if m := text.Missing("selfCheckParts", selfCheckParts); len(m) > 0 {
		t.Errorf("the self-check lacks a language: %v", m)
	}
	check := func(where string, c text.Text) {
		en, zh := linked(c.EN), linked(c.ZH)
		if !slices.Equal(en, zh) {
			t.Errorf("%s links %v in English, %v in Chinese", where, en, zh)
		}
		for _, id := range en {
			if _, err := scenarios.Lookup(id); err != nil {
				t.Errorf("%s links %s: %v", where, id, err)
			}
		}
		for _, s := range []string{c.EN, c.ZH} {
			if strings.Contains(s, "](") {
				t.Errorf("%s writes a link out, not as [[ID]]: %q", where, s)
			}
		}
	}
	for i, p := range selfCheckParts {
		if p.Table == nil {
			check(fmt.Sprintf("part %d", i), p.Text)
			continue
		}
		for j, r := range p.Table.Rows {
			if len(r) != len(p.Table.Head) {
				t.Errorf("part %d, row %d: %d cells, the head %d", i, j, len(r), len(p.Table.Head))
			}
			for k, c := range r {
				check(fmt.Sprintf("part %d, row %d, cell %d", i, j, k), c)
			}
		}
	}
}

// linked is the lessons s links, [[ID]], in order.
func linked(s string) []string {
	var ids []string
	for _, m := range selfCheckLink.FindAllStringSubmatch(s, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// The page is the parts with their links written out: the Chinese one
// says it is generated, and the English one, docs/self-check.md, is the
// same page without that line.
func TestSelfCheckPageWritesItsLinks(t *testing.T) {
	en, zh := SelfCheck("en"), SelfCheck("zh")
	if !strings.HasPrefix(en, "# Self-check: ") || !strings.HasPrefix(zh, "<!-- ") || !strings.Contains(zh, "\n# 自查清单") {
		t.Errorf("the pages begin %.60q and %.60q", en, zh)
	}
	if !strings.Contains(en, "| 1 | Are NX and EX in **one** `SET`? |") || !strings.Contains(en, "[`setnx-no-ex`](setnx-no-ex.md): ") ||
		strings.Contains(en+zh, "[[") {
		t.Errorf("the English page's first row is not written as Markdown:\n%.900s", en)
	}
}

// The self-check's points run in order (issue #41 item 12: 4a, 4c, 4b, 4d),
// and its gc-pause cell names, of the leases that gc-pause breaks (mutex),
// exactly those whose data stays right (resource kept): "every lease
// breaks resource except fenced" left out redlock-fenced and fenced-no-tag.
func TestSelfCheckPointsInOrderAndGCPauseNamesEveryKeeper(t *testing.T) {
	var points []string
	var cell text.Text
	for _, p := range selfCheckParts {
		if p.Table == nil {
			continue
		}
		for _, r := range p.Table.Rows {
			points = append(points, r[0].EN)
			for _, c := range r {
				if strings.Contains(c.EN, "[[gc-pause]]: every lease") {
					cell = c
				}
			}
		}
	}
	check := slices.DeleteFunc(slices.Clone(points), func(p string) bool { return len(p) == 0 || p[0] < '0' || p[0] > '9' })
	if !slices.IsSorted(check) {
		t.Errorf("the self-check's points run %v", check)
	}
	if cell.EN == "" {
		t.Fatal("no self-check cell tells what gc-pause's leases break")
	}
	s, err := scenarios.Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	for impl := range s.Expect {
		broken, _ := s.Expected(impl)
		keeps := slices.Contains(broken, "mutex") && !slices.Contains(broken, "resource")
		for _, lang := range []string{"en", "zh"} {
			if named := strings.Contains(cell.In(lang), "`"+impl+"`"); named != keeps {
				t.Errorf("the self-check's gc-pause cell (%s) names %s: %v; gc-pause × %s breaks %v", lang, impl, named, impl, broken)
			}
		}
	}
}
