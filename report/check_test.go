package report

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
)

// synthetic makes check results for ids × n implementations with a mix of
// marks: broken invariants, none, an unmet cell, a skipped one, and one cell
// left out (shown as "?").
func synthetic(ids []string, n int) []scenarios.Result {
	var out []scenarios.Result
	invs := invariant.IDs()
	for i, id := range ids {
		for j := range n {
			name := fmt.Sprintf("impl-%d", j+1)
			if j%4 == 3 {
				name = fmt.Sprintf("uuid-lua-watchdog-uncapped-%d", j+1) // a long name
			}
			if i == 1 && j == n-1 {
				continue // not run: "?"
			}
			var broken []string
			for k, inv := range invs {
				if (i+j)>>k&1 == 1 {
					broken = append(broken, inv)
				}
			}
			r := scenarios.Result{Scenario: id, Impl: name, Broken: broken, Expected: broken, Pass: true}
			switch {
			case i == 0 && j == n/2:
				r.Expected, r.Pass = nil, len(broken) == 0
			case i == 2 && j == 1:
				r.Skipped = "needs 5 servers in --redis"
			}
			out = append(out, r)
		}
	}
	return out
}

// wantMark is the cell the table shows for r, worked out independently of
// Matrix: the invariants' first letters, "!" when unmet, "skip", and "?" for
// a cell with no result.
func wantMark(r scenarios.Result, ok bool) string {
	switch {
	case !ok:
		return "?"
	case r.Skipped != "":
		return "skip"
	}
	m := "—"
	if len(r.Broken) > 0 {
		m = ""
		for _, inv := range r.Broken {
			m += strings.ToUpper(inv[:1])
		}
	}
	if !r.Pass {
		m += "!"
	}
	return m
}

// parsedTable is what a reader gets from a check table.
type parsedTable struct {
	headers []int             // column numbers, every block's, in order
	key     map[int]string    // column number → implementation
	cells   map[[2]string]int // (scenario, implementation) → times shown
	marks   map[[2]string]string
}

// parseTable reads Matrix's output: blocks of a header of column numbers
// and one row per scenario (a row whose id is too long has it on the lines
// above its cells), then the key: lines of "N name · N name".
func parseTable(t *testing.T, out string, ids []string) parsedTable {
	t.Helper()
	p := parsedTable{key: map[int]string{}, cells: map[[2]string]int{}, marks: map[[2]string]string{}}
	var cols []int
	type row struct {
		id    string
		cells []string
	}
	var rows []row
	pending := ""
	isNumber := func(s string) bool {
		_, err := strconv.Atoi(s)
		return err == nil
	}
	numbers := func(f []string) ([]int, bool) {
		var ns []int
		for _, s := range f {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, false
			}
			ns = append(ns, n)
		}
		return ns, len(ns) > 0
	}
	flush := func() {
		for _, r := range rows {
			if len(r.cells) != len(cols) {
				t.Errorf("row %s has %d cells under %d columns %v", r.id, len(r.cells), len(cols), cols)
				continue
			}
			for i, c := range cols {
				k := [2]string{r.id, strconv.Itoa(c)}
				p.cells[k]++
				p.marks[k] = r.cells[i]
			}
		}
		rows = nil
	}
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		f := strings.Fields(line)
		indented := strings.HasPrefix(line, " ")
		switch ns, isHeader := numbers(f); {
		case len(f) == 0:
		case isHeader && indented:
			flush()
			cols = ns
			p.headers = append(p.headers, ns...)
		case !indented && slices.Contains(ids, f[0]) && len(f) > 1:
			rows = append(rows, row{f[0], f[1:]})
		case !indented && len(f) == 1 && !strings.Contains(line, "·"):
			pending += f[0]
		case indented && pending != "":
			rows = append(rows, row{pending, f})
			pending = ""
		case !indented && isNumber(f[0]):
			// The key, or the summary ("2 of 18 cells …").
			flush()
			for entry := range strings.SplitSeq(line, " · ") {
				e := strings.Fields(entry)
				if len(e) != 2 || !isNumber(e[0]) {
					break
				}
				n, _ := strconv.Atoi(e[0])
				if _, dup := p.key[n]; dup {
					t.Errorf("the key names column %d twice", n)
				}
				p.key[n] = e[1]
			}
		}
	}
	flush()
	if pending != "" {
		t.Errorf("a row label with no cells: %q", pending)
	}
	return p
}

// The check table fits in 80 columns whatever the size of the catalogue,
// and shows every cell once. Issue "Lessons as files": a 12th
// implementation pushed it past 80.
func TestMatrixFitsAnyCatalogue(t *testing.T) {
	base := []string{"setnx-no-ex", "del-other", "get-then-del", "failover", "redlock-delayed-restart"}
	long := "a-failure-mode-whose-id-is-long-enough-to-crowd-the-columns"
	huge := strings.Repeat("very-", 20) + "long"
	for _, tc := range []struct {
		name  string
		ids   []string
		impls int
	}{
		{"12 implementations", base, 12},
		{"3 implementations", append(slices.Clone(base), long), 3},
		{"11 implementations", append(slices.Clone(base), long), 11},
		{"25 implementations", append(slices.Clone(base), long), 25},
		{"40 implementations", append(slices.Clone(base), long), 40},
		{"an id wider than the table", append(slices.Clone(base), huge), 12},
		{"many scenarios", manyIDs(60), 13},
	} {
		for _, lang := range []string{"en", "zh"} {
			t.Run(tc.name+"/"+lang, func(t *testing.T) {
				results := synthetic(tc.ids, tc.impls)
				out := render(t, func(w *bytes.Buffer) error { return Matrix(w, results, lang) })
				for line := range strings.Lines(out) {
					line = strings.TrimSuffix(line, "\n")
					// The lines about single cells are log lines, one per
					// cell so that they can be grepped; only the table and
					// its key are laid out.
					if perCell(line) {
						continue
					}
					if w := ansi.StringWidth(line); w > 80 {
						t.Errorf("line of %d columns: %q", w, line)
					}
				}
				p := parseTable(t, out, tc.ids)
				var want []int
				for j := range tc.impls {
					want = append(want, j+1)
				}
				if !slices.Equal(p.headers, want) {
					t.Errorf("column numbers %v, want each of 1…%d once, in order", p.headers, tc.impls)
				}
				given := map[[2]string]scenarios.Result{}
				var names []string
				for _, r := range results {
					given[[2]string{r.Scenario, r.Impl}] = r
					if !slices.Contains(names, r.Impl) {
						names = append(names, r.Impl)
					}
				}
				for j, name := range names {
					if p.key[j+1] != name {
						t.Errorf("the key names column %d %q, want %q", j+1, p.key[j+1], name)
					}
				}
				for _, id := range tc.ids {
					for j, name := range names {
						k := [2]string{id, strconv.Itoa(j + 1)}
						r, ok := given[[2]string{id, name}]
						if n := p.cells[k]; n != 1 {
							t.Errorf("%s × %s shown %d times", id, name, n)
						} else if got, want := p.marks[k], wantMark(r, ok); got != want {
							t.Errorf("%s × %s = %q, want %q", id, name, got, want)
						}
					}
				}
			})
		}
	}
}

func manyIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("failure-mode-%d", i+1)
	}
	return ids
}

func perCell(line string) bool {
	for _, prefix := range []string{"UNMET ", "SKIPPED ", "WARNING ", "不符合预期 ", "跳过 ", "警告 "} {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}
