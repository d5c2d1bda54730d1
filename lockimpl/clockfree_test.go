package lockimpl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// timeKeepers are the calls by which Go code reads the time or sets a timer
// of its own: what a lock marked ClockFree never does.
var timeKeepers = map[string]bool{
	"time.Now": true, "time.Since": true, "time.Until": true, "time.Sleep": true, "time.After": true,
	"time.AfterFunc": true, "time.NewTimer": true, "time.NewTicker": true, "time.Tick": true,
	"context.WithTimeout": true, "context.WithDeadline": true, "context.WithTimeoutCause": true,
	"context.WithDeadlineCause": true, "Clock.Now": true,
}

// The package's code reads the time, or sets timers, only in the files of
// locks not marked ClockFree (and in WallClock, the clock itself), and the
// files of ClockFree locks import no library beyond the standard one,
// go-redis and lockstep's own, whose code this cannot read: a lock marked
// ClockFree keeps its word (Env.Clock.Now is caught at run time; time.Now
// only here).
func TestClockFreeLocksKeepNoTime(t *testing.T) {
	free, timed := map[string]bool{}, map[string]bool{}
	for _, in := range lockimpl.All() {
		file, _ := runtime.FuncForPC(reflect.ValueOf(in.New).Pointer()).FileLine(reflect.ValueOf(in.New).Pointer())
		if in.ClockFree {
			free[filepath.Base(file)] = true
		} else {
			timed[filepath.Base(file)] = true
		}
	}
	if len(free) == 0 {
		t.Fatal("no lock is marked ClockFree")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if free[name] {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.Contains(strings.Split(path, "/")[0], ".") && !strings.HasPrefix(path, "github.com/redis/go-redis/") && !strings.HasPrefix(path, "github.com/lockstep-sim/lockstep/") {
					t.Errorf("%s holds a ClockFree lock and imports %s, whose code may read the time", name, path)
				}
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || timed[name] && !free[name] || isWallClock(fn) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && timeKeepers[lastTwo(sel)] {
						t.Errorf("%s: %s calls %s, in a file of locks marked ClockFree or shared by them", fset.Position(call.Pos()), fn.Name.Name, lastTwo(sel))
					}
				}
				return true
			})
		}
	}
}

// lastTwo is a selector's last two names: "time.Now", "Clock.Now" (of
// l.env.Clock.Now).
func lastTwo(sel *ast.SelectorExpr) string {
	switch x := sel.X.(type) {
	case *ast.Ident:
		return x.Name + "." + sel.Sel.Name
	case *ast.SelectorExpr:
		return x.Sel.Name + "." + sel.Sel.Name
	}
	return ""
}

func isWallClock(fn *ast.FuncDecl) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	id, ok := fn.Recv.List[0].Type.(*ast.Ident)
	return ok && id.Name == "WallClock"
}
