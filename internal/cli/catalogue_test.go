package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// namesWith are the catalogue's implementations whose names begin with
// prefix, in its order, space-separated, as completion offers them: a
// test's list of them would fail on a lock added to the catalogue, which
// go generate ./... is all it should take (#39, item 3).
func namesWith(prefix string) string {
	var names []string
	for _, n := range lockimpl.Names() {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// refreshTable is the command that refreshes docs/explore.md's agreement
// table, whose rows (tableRows) are was and should be now: go generate
// ./... where it lacks cells (a new lesson or implementation: only those
// are searched, and the rest kept), the whole table searched afresh where
// a cell it has changed (the engine, a lock or a search did), which go
// generate leaves alone as a reviewed result.
func refreshTable(was, now map[string]string) string {
	changed := false
	for id, marks := range was {
		old := strings.Fields(marks)
		got := strings.Fields(now[id])
		if len(old) == len(got) && marks != now[id] {
			changed = true
		}
	}
	if len(was) < len(now) || !changed {
		return "run go generate ./..., which searches the cells the table lacks; then explain every new disagreement under \"Why they disagree\"."
	}
	return "cells it has changed, which go generate ./... keeps: LOCKSTEP_WRITE_EXPLORE_TABLE=1 go test -count=1 -timeout 60m -run TestExploreTableIsFresh ./internal/cli/ searches the whole table afresh (about 270 s); then explain every new disagreement under \"Why they disagree\"."
}

// The README's "Adding an implementation" and lockimpl's package doc give
// the same steps: write the file, add the registry entry, run go generate
// ./..., review the diff (#39, item 3: one said two steps, the other three).
func TestAddingAnImplementationSaysTheSameSteps(t *testing.T) {
	readme := readmeSection(t, "## Adding an implementation")
	src, err := os.ReadFile(repoPath("lockimpl/lock.go"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, _ := strings.Cut(string(src), "\npackage lockimpl")
	_, pkg, ok := strings.Cut(pkg, "// Adding an implementation")
	if !ok {
		t.Fatal("lockimpl's package doc says nothing of adding an implementation")
	}
	steps := []string{"Write", "registry.go", "go generate ./...", "Review the diff"}
	for name, doc := range map[string]string{"README.md": readme, "lockimpl's package doc": pkg} {
		for i, step := range steps {
			// The step's text: from its number to the next one's.
			_, text, ok := strings.Cut(doc, fmt.Sprintf("%d. ", i+1))
			text, _, _ = strings.Cut(text, fmt.Sprintf("%d. ", i+2))
			if !ok || !strings.Contains(text, step) {
				t.Errorf("%s: step %d does not say %q", name, i+1, step)
			}
		}
		if strings.Contains(doc, fmt.Sprintf("%d. ", len(steps)+1)) {
			t.Errorf("%s gives more steps than %q", name, steps)
		}
	}
}
