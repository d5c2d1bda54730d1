package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The module path is kept in one place, go.mod's module line
// (.ci/set-module-path moves everything after it): every import of one of
// the module's packages, in every Go file of the tree (examples and
// testdata programs included), every Go path in the docs, and
// examples/mylock's require and replace name that path, so that what a
// user copies is what go get fetches.
func TestModulePathIsEverywhere(t *testing.T) {
	mod := readString(t, "go.mod")
	path := modulePath(mod)
	if !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") || strings.Count(path, "/") < 2 {
		t.Errorf("module path %q: want a host and a path (host/owner/lockstep), as go get fetches it", path)
	}
	dirs := packageDirs(t)
	var required []string
	for _, m := range requireLine.FindAllStringSubmatch(mod, -1) {
		required = append(required, m[1])
	}
	walkTree(t, func(name string) {
		switch {
		case strings.HasSuffix(name, ".go"):
			for _, imp := range imports(t, name) {
				if stale(imp, path, dirs, required) {
					t.Errorf("%s imports %q, not under the module path %s", name, imp, path)
				}
			}
		case strings.HasSuffix(name, ".md"):
			for _, m := range docPath.FindAllStringSubmatch(readString(t, name), -1) {
				if m[1] != path && m[1] != "." && m[1] != ".." && !strings.HasSuffix(m[1], "/examples") {
					t.Errorf("%s names %s/%s, not under the module path %s", name, m[1], m[2], path)
				}
			}
		}
	})
	mylock := readString(t, "examples/mylock/go.mod")
	if !strings.Contains(mylock, "\n\t"+path+" v0.0.0\n") || !strings.Contains(mylock, "\nreplace "+path+" => ../..\n") {
		t.Errorf("examples/mylock/go.mod: want require %s v0.0.0 and replace %[1]s => ../.. (the working tree, for CI):\n%s", path, mylock)
	}
}

// docPath finds a Go path to one of the public packages in a doc.
var docPath = regexp.MustCompile(`([A-Za-z0-9.-]+(?:/[A-Za-z0-9.-]+)*)/(locktest|lockimpl)\b`)

// stale says whether the import imp names one of the module's packages
// (a path ending in one of its top-level directories and below) under a
// path other than the module's own.
func stale(imp, path string, dirs map[string]bool, required []string) bool {
	if imp == path || strings.HasPrefix(imp, path+"/") {
		return false
	}
	for _, r := range required {
		if imp == r || strings.HasPrefix(imp, r+"/") {
			return false
		}
	}
	parts := strings.Split(imp, "/")
	for i := 1; i < len(parts); i++ {
		if dirs[parts[i]] {
			return true
		}
	}
	return false
}

// packageDirs are the top-level directories of the module that hold Go
// packages.
func packageDirs(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "testdata" && e.Name() != "docs" {
			dirs[e.Name()] = true
		}
	}
	return dirs
}

// walkTree calls f with every file of the tree but version control's.
func walkTree(t *testing.T, f func(name string)) {
	t.Helper()
	err := filepath.WalkDir(".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (name == ".git" || name == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			f(name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func imports(t *testing.T, name string) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range file.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}

// modulePath is the module line of the go.mod text mod.
func modulePath(mod string) string {
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindStringSubmatch(mod)
	if m == nil {
		return ""
	}
	return m[1]
}

// requireLine finds each module path a go.mod requires.
var requireLine = regexp.MustCompile(`(?m)^\t(\S+) v\S+`)

func readString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// examples/mylock is a module of its own with a replace to this tree: a
// package of this module that imports a new dependency needs its go.sum
// entries there too, or the example does not build. go list with
// -mod=readonly fails as go test there would, in a second, here rather
// than at CI's last step.
func TestExampleModuleIsTidy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	cmd := exec.Command("go", "list", "-mod=readonly", "-deps", "-test", "./...")
	cmd.Dir = "examples/mylock"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("examples/mylock does not load (cd examples/mylock && go mod tidy): %v\n%s", err, out)
	}
}
