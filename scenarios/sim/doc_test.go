package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The package's doc names its whole public face: every exported name of
// package sim is in doc.go's comment, so a name made public on the way is
// either meant (and said) or unexported again. Before, the doc named 14
// names and go doc -short showed 84.
func TestDocNamesEveryExport(t *testing.T) {
	fset := token.NewFileSet()
	doc, err := parser.ParseFile(fset, "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`).FindAllString(doc.Doc.Text(), -1) {
		said[w] = true
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range exported(f) {
			if !said[n] {
				missing = append(missing, n+" ("+name+")")
			}
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("doc.go does not name the exported %s", m)
	}
}

// exported lists f's exported top-level names: types, functions, constants
// and variables (methods are their type's).
func exported(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
