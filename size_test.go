package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The code stays in parts a reader can take in (issue #39): no non-test Go
// file over maxFileLines lines, no type with over maxMethods methods, and
// no package over maxPackageLines non-test lines — but those listed in
// oversized, each held to the size it has now, so that it only shrinks
// until it is cut to size.
const (
	maxFileLines    = 600
	maxMethods      = 60
	maxPackageLines = 4000
)

// oversized are the packages still over maxPackageLines, with the most
// non-test lines each may have. Lower a bound when a package shrinks; drop
// its line when it is cut to size.
var oversized = map[string]int{}

func TestCodeSizes(t *testing.T) {
	packages := map[string]int{}
	methods := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Count(string(src), "\n")
		if lines > maxFileLines {
			t.Errorf("%s has %d lines, over %d: split it by what its parts do", path, lines, maxFileLines)
		}
		packages[filepath.Dir(path)] += lines
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil {
				methods[filepath.Dir(path)+"."+receiverType(fn.Recv.List[0].Type)]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for typ, n := range methods {
		if n > maxMethods {
			t.Errorf("type %s has %d methods, over %d: give a group of them, with the fields they use, a type of its own", typ, n, maxMethods)
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(packages)) {
		n, bound := packages[dir], maxPackageLines
		if b, ok := oversized[dir]; ok {
			bound = b
		}
		if n > bound {
			t.Errorf("package %s has %d non-test lines, over %d", dir, n, bound)
		}
	}
	for dir, bound := range oversized {
		if packages[dir] <= maxPackageLines {
			t.Errorf("package %s has %d non-test lines: it is cut to size, so take it out of oversized (it allows %d)", dir, packages[dir], bound)
		}
	}
	if testing.Verbose() {
		for dir, n := range packages {
			if n > maxPackageLines/2 {
				fmt.Printf("%6d %s\n", n, dir)
			}
		}
	}
}

// receiverType names a method's receiver type: T for T and *T, T for T[K].
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return fmt.Sprintf("%T", e)
}
