// Package derive writes the files that follow from the lessons and the
// catalogue of implementations: each lesson's expect row for an
// implementation it does not name yet, the README's matrix and the rows of
// its tables, docs/explore.md's agreement table and docs/lessons.md's quoted
// lesson. go generate ./... runs it (generate.go in the module's root), so
// that adding a lock is its file, its registry entry and one command, and
// the diff of that command is what a reviewer reads.
//
// It only adds: an expect row that is there is a reviewed expectation and
// stays as it is, and so does every row of a table that is there.
package derive

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// Row is one expect row a lesson lacked: what Impl broke when the lesson
// ran it.
type Row struct {
	File   string // the lesson file, as given to Expect
	Impl   string
	Broken []string
}

// Expect gives every lesson file in dir an expect row for each
// implementation of impls that it does not name: it runs the cell on
// embedded servers and writes what broke. Rows that are there are left as
// they are, however the run turns out today: a test compares those. It
// returns the rows it wrote.
func Expect(dir string, impls []lockimpl.Info) ([]Row, error) {
	return expectDir(dir, impls, true)
}

// Missing is the rows Expect would write into the lesson files in dir,
// each cell run as Expect runs it, without writing them: what lockstep
// expect reports when it is a check and not asked to --write.
func Missing(dir string, impls []lockimpl.Info) ([]Row, error) {
	return expectDir(dir, impls, false)
}

// expectDir is Expect, or Missing unless write.
func expectDir(dir string, impls []lockimpl.Info, write bool) ([]Row, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.lesson"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var wrote []Row
	for _, file := range files {
		rows, err := expectFile(file, impls, write)
		if err != nil {
			return nil, err
		}
		wrote = append(wrote, rows...)
	}
	return wrote, nil
}

// expectFile is expectDir for one lesson file.
func expectFile(file string, impls []lockimpl.Info, write bool) ([]Row, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s, err := scenarios.ParseLesson(file, data)
	if err != nil {
		return nil, err
	}
	var missing []lockimpl.Info
	for _, in := range impls {
		if _, ok := s.Expect[in.Name]; !ok {
			missing = append(missing, in)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	results, err := scenarios.CheckCells([]scenarios.Scenario{s}, missing)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var rows []Row
	for _, r := range results {
		if r.Error != "" || r.Skipped != "" {
			// No row is better than one that records a run that did not
			// happen: the test that asks for the row names the cell.
			return nil, fmt.Errorf("%s × %s could not run: %s%s", file, r.Impl, r.Error, r.Skipped)
		}
		rows = append(rows, Row{File: file, Impl: r.Impl, Broken: r.Broken})
	}
	// The rows are placed even when they are not written, so that a
	// check finds what would keep them from being written.
	out, err := insertRows(data, rows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !write {
		return rows, nil
	}
	return rows, os.WriteFile(file, out, 0o644)
}

// Verdict is what r's line in the expect block says after its name: the
// invariants it broke, or "-" for none.
func (r Row) Verdict() string {
	if len(r.Broken) == 0 {
		return "-"
	}
	return strings.Join(r.Broken, " ")
}

// insertRows puts each row into the expect block of the lesson src, in the
// catalogue's order (then the locks in other languages'): after the row of the nearest implementation before it
// that the block has, or first. Its invariants start in the column the
// block's rows use, or two spaces after a longer name.
func insertRows(src []byte, rows []Row) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	start := slices.IndexFunc(lines, func(l string) bool {
		f := strings.Fields(l)
		return len(f) > 0 && f[0] == "expect" && l[0] != ' ' && l[0] != '\t'
	})
	if start < 0 {
		return nil, fmt.Errorf("no expect block")
	}
	// at[name] is the index of name's row in lines; col is where the
	// invariants of the block's first row start.
	at := map[string]int{}
	col, indent := 0, "    "
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			break
		}
		if strings.HasPrefix(f[0], "#") {
			continue
		}
		at[f[0]] = i
		if col == 0 && len(f) > 1 {
			indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			col = strings.Index(l, f[0]) + len(f[0])
			col += len(l[col:]) - len(strings.TrimLeft(l[col:], " \t"))
		}
	}
	names := lockimpl.KnownNames()
	for _, r := range rows {
		pad := max(2, col-len(indent)-len(r.Impl))
		row := indent + r.Impl + strings.Repeat(" ", pad) + r.Verdict() + "\n"
		// After the nearest implementation before it in the catalogue.
		pos := start + 1
		if len(at) > 0 {
			pos = firstRow(at)
		}
		for _, before := range names[:max(0, slices.Index(names, r.Impl))] {
			if i, ok := at[before]; ok && i+1 > pos {
				pos = i + 1
			}
		}
		lines = slices.Insert(lines, pos, row)
		for name, i := range at {
			if i >= pos {
				at[name] = i + 1
			}
		}
		at[r.Impl] = pos
	}
	return []byte(strings.Join(lines, "")), nil
}

// firstRow is the index of the block's first row.
func firstRow(at map[string]int) int {
	first := -1
	for _, i := range at {
		if first < 0 || i < first {
			first = i
		}
	}
	return first
}
