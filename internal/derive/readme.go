package derive

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The README's sections that derive writes in.
const (
	MatrixHeading   = "## The lesson, as `lockstep check` prints it"
	ModesHeading    = "## The failure modes"
	ImplsHeading    = "## The implementations"
	DiagramBegin    = "```mermaid\n"
	diagramLesson   = "get-then-del"
	matrixCodeBlock = "```\n"
)

// README returns the README with its derived parts as the catalogue and
// the lessons make them today: the matrix (lockstep check's output), the
// diagram (play get-then-del --format mermaid), and a row in the tables
// of failure modes and of implementations for each one they lack, written
// from the lesson's summary or the implementation's Summary, for its author
// to make better in the diff. The rows that are there stay as they are.
func README(readme []byte) ([]byte, error) {
	doc := string(readme)
	results, err := scenarios.Check()
	if err != nil {
		return nil, err
	}
	var matrix bytes.Buffer
	if err := report.Matrix(&matrix, results, "en"); err != nil {
		return nil, err
	}
	if doc, err = replaceBlock(doc, MatrixHeading, matrixCodeBlock, matrix.String()); err != nil {
		return nil, err
	}
	if doc, err = readmeDiagram(doc); err != nil {
		return nil, err
	}
	var modes, impls []string
	for _, s := range scenarios.All() {
		modes = append(modes, fmt.Sprintf("| `%s` | %s | `%s` |\n", s.ID, s.Summary.EN, s.Naive))
	}
	for _, in := range lockimpl.All() {
		impls = append(impls, fmt.Sprintf("| `%s` | %s |\n", in.Name, in.Summary.EN))
	}
	if doc, err = addTableRows(doc, ModesHeading, scenarios.IDs(), modes); err != nil {
		return nil, err
	}
	if doc, err = addTableRows(doc, ImplsHeading, lockimpl.Names(), impls); err != nil {
		return nil, err
	}
	return []byte(doc), nil
}

// readmeDiagram replaces the README's Mermaid diagram with the one play
// draws today.
func readmeDiagram(doc string) (string, error) {
	s, err := scenarios.Lookup(diagramLesson)
	if err != nil {
		return "", err
	}
	impl, err := lockimpl.Lookup(s.Naive)
	if err != nil {
		return "", err
	}
	tr, err := s.Run(impl)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := report.Mermaid(&b, tr, "en"); err != nil {
		return "", err
	}
	return replaceBlock(doc, "", DiagramBegin, b.String())
}

// section returns where the section under heading starts and ends in doc:
// from its heading's line to the next heading of its level. An empty
// heading is the whole document.
func section(doc, heading string) (from, to int, err error) {
	if heading == "" {
		return 0, len(doc), nil
	}
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return 0, 0, fmt.Errorf("README.md has no section %q", heading)
	}
	from = i + 1
	level := heading[:strings.Index(heading, " ")+1]
	to = len(doc)
	if j := strings.Index(doc[from+len(heading):], "\n"+level); j >= 0 {
		to = from + len(heading) + j + 1
	}
	return from, to, nil
}

// replaceBlock replaces the text of the first fenced code block that
// begins with the line begin in the section under heading.
func replaceBlock(doc, heading, begin, text string) (string, error) {
	from, to, err := section(doc, heading)
	if err != nil {
		return "", err
	}
	i := strings.Index(doc[from:to], "\n"+begin)
	if i < 0 {
		return "", fmt.Errorf("README.md, %q: no code block %q", heading, strings.TrimSpace(begin))
	}
	start := from + i + 1 + len(begin)
	n := strings.Index(doc[start:to], "```")
	if n < 0 {
		return "", fmt.Errorf("README.md, %q: the code block does not end", heading)
	}
	return doc[:start] + text + doc[start+n:], nil
}

// tableRow matches a row of the README's tables, its name in its first
// cell.
var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\|")

// addTableRows gives the table in the section under heading a row for
// each of names it lacks: rows[i] for names[i], after the row of the
// nearest name before it.
func addTableRows(doc, heading string, names, rows []string) (string, error) {
	from, to, err := section(doc, heading)
	if err != nil {
		return "", err
	}
	lines := strings.SplitAfter(doc[from:to], "\n")
	at := map[string]int{}
	header := -1
	for i, l := range lines {
		if m := tableRow.FindStringSubmatch(l); m != nil {
			at[m[1]] = i
		} else if strings.HasPrefix(l, "| --- |") || strings.HasPrefix(l, "|---|") {
			header = i
		}
	}
	if header < 0 {
		return "", fmt.Errorf("README.md, %q: no table", heading)
	}
	for k, name := range names {
		if _, ok := at[name]; ok {
			continue
		}
		pos := header + 1
		for _, before := range names[:k] {
			if i, ok := at[before]; ok && i+1 > pos {
				pos = i + 1
			}
		}
		lines = slices.Insert(lines, pos, rows[k])
		for n, i := range at {
			if i >= pos {
				at[n] = i + 1
			}
		}
		at[name] = pos
	}
	return doc[:from] + strings.Join(lines, "") + doc[to:], nil
}
