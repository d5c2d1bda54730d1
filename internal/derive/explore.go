package derive

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The agreement table in docs/explore.md sits between these lines.
const (
	AgreeBegin = "<!-- go run . check --explore: begin -->\n```\n"
	AgreeEnd   = "```\n<!-- go run . check --explore: end -->"
)

// Searched says which cells ExploreTable searched, and how many searches
// it reused from the table.
type Searched struct {
	Cells  []string // "lesson × impl"
	Reused int
}

// ExploreTable returns docs/explore.md with its agreement table (check
// --explore's) as it is today for every lesson and implementation: the
// cells the table has keep their marks, and only the cells it lacks, a new
// implementation's column or a new lesson's row, are searched. The whole
// table is more than five minutes of searches on two cores; one
// implementation's column is a twenty-fourth of that.
func ExploreTable(ctx context.Context, doc []byte) ([]byte, Searched, error) {
	text := string(doc)
	_, rest, ok := strings.Cut(text, AgreeBegin)
	if !ok {
		return nil, Searched{}, fmt.Errorf("docs/explore.md has no %q", AgreeBegin)
	}
	block, _, ok := strings.Cut(rest, AgreeEnd)
	if !ok {
		return nil, Searched{}, fmt.Errorf("docs/explore.md has no %q", AgreeEnd)
	}
	marks, err := ParseAgreement(block)
	if err != nil {
		return nil, Searched{}, err
	}
	lessons, impls := scenarios.All(), lockimpl.All()
	// The cells the table lacks, searched an implementation at a time so
	// that its lessons share their searches as in check --explore.
	found := map[[2]string]scenarios.Agreement{}
	var done Searched
	for _, in := range impls {
		var todo []scenarios.Scenario
		for _, s := range lessons {
			if _, ok := marks[[2]string{s.ID, in.Name}]; !ok {
				todo = append(todo, s)
			}
		}
		if len(todo) == 0 {
			continue
		}
		cells, err := scenarios.Agree(ctx, todo, []lockimpl.Info{in}, nil)
		if err != nil {
			return nil, done, err
		}
		for _, a := range cells {
			found[[2]string{a.Scenario, a.Impl}] = a
			done.Cells = append(done.Cells, a.Scenario+" × "+a.Impl)
		}
	}
	var cells []scenarios.Agreement
	for _, s := range lessons {
		for _, in := range impls {
			k := [2]string{s.ID, in.Name}
			if a, ok := found[k]; ok {
				cells = append(cells, a)
				continue
			}
			a, err := cellOf(s.ID, in.Name, marks[k])
			if err != nil {
				return nil, done, err
			}
			cells = append(cells, a)
			done.Reused++
		}
	}
	var b bytes.Buffer
	if err := report.Agreement(&b, cells, lessons, "en"); err != nil {
		return nil, done, err
	}
	return []byte(strings.Replace(text, AgreeBegin+block+AgreeEnd, AgreeBegin+b.String()+AgreeEnd, 1)), done, nil
}

// invariantOf is the invariant each of the table's letters stands for.
var invariantOf = map[rune]string{'M': "mutex", 'O': "ownership", 'L': "liveness", 'R': "resource"}

// cellOf is the cell a mark of the table stands for: as much of a
// scenarios.Agreement as report.Agreement prints (whether the lesson judged
// the cell, and what the search missed and added).
func cellOf(lesson, impl, mark string) (scenarios.Agreement, error) {
	a := scenarios.Agreement{Scenario: lesson, Impl: impl, Judged: mark != "·"}
	for _, part := range regexp.MustCompile(`[-+][MOLR]+`).FindAllString(mark, -1) {
		for _, letter := range part[1:] {
			if part[0] == '-' {
				a.Missing = append(a.Missing, invariantOf[letter])
			} else {
				a.Extra = append(a.Extra, invariantOf[letter])
			}
		}
	}
	if report.AgreeMark(a) != mark {
		return a, fmt.Errorf("docs/explore.md: %s × %s is %q, which is no mark of check --explore's", lesson, impl, mark)
	}
	return a, nil
}

// ParseAgreement reads check --explore's table (report.Agreement's text)
// into each cell's mark, by lesson and implementation: the column numbers
// of each block of columns, and the key below that names them.
func ParseAgreement(table string) (map[[2]string]string, error) {
	// The key: lines of "1 no-lock · 2 local-mutex · …".
	key := map[int]string{}
	keyLine := regexp.MustCompile(`^\d+ [a-z][a-z0-9-]*( · \d+ [a-z][a-z0-9-]*)*$`)
	for line := range strings.Lines(table) {
		if !keyLine.MatchString(strings.TrimSpace(line)) {
			continue
		}
		for _, entry := range strings.Split(strings.TrimSpace(line), " · ") {
			num, name, _ := strings.Cut(entry, " ")
			n, _ := strconv.Atoi(num)
			key[n] = name
		}
	}
	marks := map[[2]string]string{}
	id := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	var cols []int
	pending := "" // a lesson's id too wide for its cells to sit beside it
	for line := range strings.Lines(table) {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			cols = nil
		case cols == nil && regexp.MustCompile(`^[0-9]+$`).MatchString(f[0]):
			for _, c := range f {
				n, _ := strconv.Atoi(c)
				cols = append(cols, n)
			}
		case cols != nil && len(f) == 1 && id.MatchString(f[0]):
			pending = f[0]
		case cols != nil && (len(f) == len(cols)+1 || pending != "" && len(f) == len(cols)):
			lesson := pending
			if len(f) == len(cols)+1 {
				lesson, f = f[0], f[1:]
			}
			pending = ""
			for i, mark := range f {
				impl, ok := key[cols[i]]
				if !ok {
					return nil, fmt.Errorf("docs/explore.md: the key names no column %d", cols[i])
				}
				marks[[2]string{lesson, impl}] = mark
			}
		}
	}
	if len(marks) == 0 {
		return nil, fmt.Errorf("docs/explore.md: no cells in the agreement table")
	}
	return marks, nil
}
