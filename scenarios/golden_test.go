package scenarios_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// traceTextDir holds a text golden for each lesson's naive implementation
// and its fix, <lesson>.<impl>.txt, as lockstep play --format text prints
// the trace: a change to a lesson's narration or to what its cells do shows
// in review as a diff of these files, and a failing test prints that diff.
const traceTextDir = "testdata/traces"

// writeTraceTexts is the one command that writes the text goldens afresh.
const writeTraceTexts = "LOCKSTEP_WRITE_TRACE_TEXT=1 go test ./scenarios/ -run '^TestTraceTextsMatchTheirGoldens$'"

// goldenCells are the cells with a text golden: each lesson's naive
// implementation and the fix set beside it, the two its page and compare
// mode show.
func goldenCells() map[string]bool {
	cells := map[string]bool{}
	for _, s := range scenarios.All() {
		cells[s.ID+" "+s.Naive] = true
		cells[s.ID+" "+s.Fix(s.Naive)] = true
	}
	return cells
}

func goldenFile(cell string) string {
	return filepath.Join(traceTextDir, strings.Replace(cell, " ", ".", 1)+".txt")
}

// Each golden cell's trace prints as its text golden says, line for line;
// a difference fails with a unified diff from the golden to the run.
func TestTraceTextsMatchTheirGoldens(t *testing.T) {
	cells := goldenCells()
	write := os.Getenv("LOCKSTEP_WRITE_TRACE_TEXT") == "1"
	if write {
		if err := os.MkdirAll(traceTextDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seen := 0
	for _, r := range scenarios.SharedCheck(t) {
		cell := r.Scenario + " " + r.Impl
		if !cells[cell] {
			continue
		}
		seen++
		got, path := traceText(t, r.Trace), goldenFile(cell)
		if write {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s × %s has no text golden %s: %s writes it", r.Scenario, r.Impl, path, writeTraceTexts)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d := traceDiff(path, r.Scenario+" × "+r.Impl+" now", string(want), got); d != "" {
			t.Errorf("%s × %s prints otherwise than its text golden (%s writes it afresh):\n%s", r.Scenario, r.Impl, writeTraceTexts, d)
		}
	}
	if seen != len(cells) {
		t.Errorf("the matrix ran %d of the %d golden cells", seen, len(cells))
	}
	// A golden no cell has any more (a lesson renamed, another fix) would
	// stay in review as if it were checked.
	files, err := filepath.Glob(filepath.Join(traceTextDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		id, impl, _ := strings.Cut(name, ".")
		if cells[id+" "+impl] {
			continue
		}
		if write {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is the golden of no lesson's naive implementation or fix: %s removes it", f, writeTraceTexts)
	}
	if write {
		t.Logf("wrote %d text goldens in %s", len(cells), traceTextDir)
	}
}
