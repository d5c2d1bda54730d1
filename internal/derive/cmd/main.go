// Command cmd is what go generate ./... runs (generate.go in the module's
// root) to write the files that follow from the lessons and the catalogue:
//
//	go run ./internal/derive/cmd expect   each lesson's missing expect rows
//	go run ./internal/derive/cmd files    the README, docs/explore.md (the moves, the agreement), docs/lessons.md
//
// They are two runs, not one, and go run . docs docs runs between them:
// the lessons are embedded in the binary, so the runs after expect are
// built with the rows it wrote. Run from the module's root.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/internal/derive"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/derive/cmd expect|files")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "expect":
		err = expect()
	case "files":
		err = files(context.Background())
	default:
		err = fmt.Errorf("unknown step %q: expect or files", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "derive:", err)
		os.Exit(1)
	}
}

// expect writes the lessons' missing expect rows and names each: the
// catalogue's, and those of the locks in other languages this machine can
// run (their rows stay as they are where it cannot).
func expect() error {
	impls := lockimpl.All()
	for _, in := range lockimpl.Others() {
		if err := in.Needs(); err != nil {
			fmt.Printf("%s: not run, its missing rows not written: %v\n", in.Name, err)
			continue
		}
		impls = append(impls, in)
	}
	rows, err := derive.Expect("scenarios/lessons", impls)
	for _, r := range rows {
		fmt.Printf("%s: expect %s %v (review it in the diff)\n", r.File, r.Impl, r.Broken)
	}
	return err
}

// files writes the README's, docs/explore.md's and docs/lessons.md's
// derived parts, each file only where it changed.
func files(ctx context.Context) error {
	if err := rewrite("README.md", derive.README); err != nil {
		return err
	}
	lesson, err := os.ReadFile(derive.ExampleFile)
	if err != nil {
		return err
	}
	if err := rewrite("docs/lessons.md", func(b []byte) ([]byte, error) { return derive.LessonsPage(b, lesson) }); err != nil {
		return err
	}
	// The searches run with the collector as check --explore runs them.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(explore.GCPercent)
	}
	start := time.Now()
	return rewrite("docs/explore.md", func(b []byte) ([]byte, error) {
		b, err := derive.MovesTable(b)
		if err != nil {
			return nil, err
		}
		out, done, err := derive.ExploreTable(ctx, b)
		if len(done.Cells) > 0 {
			fmt.Printf("docs/explore.md: searched the %d cells the table lacked in %s (%s), kept the %d it had\n",
				len(done.Cells), time.Since(start).Round(time.Second), summary(done.Cells), done.Reused)
		}
		return out, err
	})
}

// rewrite replaces the file at path with what derive makes of it, if that
// differs.
func rewrite(path string, derive func([]byte) ([]byte, error)) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	b, err := derive(old)
	if err != nil {
		return err
	}
	if string(b) == string(old) {
		return nil
	}
	fmt.Println("wrote", path)
	return os.WriteFile(path, b, 0o644)
}

// summary says how many of cells ("lesson × impl") each implementation
// has, in their order.
func summary(cells []string) string {
	var impls []string
	n := map[string]int{}
	for _, c := range cells {
		_, impl, _ := strings.Cut(c, " × ")
		if n[impl] == 0 {
			impls = append(impls, impl)
		}
		n[impl]++
	}
	parts := make([]string, len(impls))
	for i, impl := range impls {
		parts[i] = fmt.Sprintf("%s: %d", impl, n[impl])
	}
	return strings.Join(parts, ", ")
}
