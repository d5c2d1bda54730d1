package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's Layout table names every package of the module, as go list
// ./... lists them: a package's directory, `dir/`, in the path column of
// a row of its own or of one it shares; the module's root package is
// `main.go`. So does docs/engine.md's table of where things are, as `dir`
// (the root package is the command, which that table leaves to
// internal/cli's row). A package added without its rows fails here.
func TestLayoutNamesEveryPackage(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	named := pathCells(readmeSection(t, "## Layout"))
	engine, err := os.ReadFile(repoPath("docs/engine.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, where, _ := strings.Cut(string(engine), "\n## Where things are\n")
	where, _, _ = strings.Cut(where, "\n## ")
	inEngine := pathCells(where)
	if len(named) < 10 {
		t.Fatalf("the README's Layout table names %d paths: %v", len(named), named)
	}
	dirs := strings.Fields(string(out))
	for _, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.ToSlash(rel) + "/"
		if rel == "." {
			want = "main.go"
		}
		if !named[want] {
			t.Errorf("the README's Layout table has no row for %s (a path cell naming `%s`)", strings.TrimSuffix(want, "/"), want)
		}
		if rel != "." && !inEngine[filepath.ToSlash(rel)] {
			t.Errorf("docs/engine.md's table of where things are has no row for %s (a path cell naming `%s`)", filepath.ToSlash(rel), filepath.ToSlash(rel))
		}
	}
	if len(dirs) < 20 {
		t.Errorf("go list ./... lists %d packages: %v", len(dirs), dirs)
	}
}

// pathCells are the paths a Markdown table names in its first column: each
// `code span` of a row's first cell.
func pathCells(table string) map[string]bool {
	named := map[string]bool{}
	cell := regexp.MustCompile("`([^`]+)`")
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		path, _, _ := strings.Cut(strings.TrimPrefix(row, "| "), " | ")
		for _, m := range cell.FindAllStringSubmatch(path, -1) {
			named[m[1]] = true
		}
	}
	return named
}
