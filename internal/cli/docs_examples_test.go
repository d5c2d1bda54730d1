package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// fencedBlocks are the fenced code blocks of a Markdown file, each with the
// line its text starts on.
func fencedBlocks(t *testing.T, path string) (blocks []string, lines []int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	in, start := false, 0
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case !in && strings.HasPrefix(l, "```"):
			in, cur, start = true, nil, i+2
		case in && strings.HasPrefix(l, "```"):
			in = false
			blocks, lines = append(blocks, strings.Join(cur, "\n")+"\n"), append(lines, start)
		case in:
			cur = append(cur, l)
		}
	}
	return blocks, lines
}

// Issue #28: the lessons and courses the docs show work as printed: every
// fenced lesson example of README.md and docs/*.md is checked with check
// --lessons, as the docs tell an instructor to, and every course example
// with check --course, beside a directory that holds those lessons. The
// docs' annotated examples keep their end-of-line comments: the formats
// take them.
func TestDocsExamplesRun(t *testing.T) {
	pages, err := filepath.Glob(repoPath("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{repoPath("README.md")}, pages...)
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	type example struct {
		page string
		line int
		text string
	}
	var lessons, courses []example
	for _, page := range pages {
		blocks, lines := fencedBlocks(t, page)
		for i, b := range blocks {
			switch firstWord(b) {
			case "lesson":
				lessons = append(lessons, example{page, lines[i], b})
			case "course":
				courses = append(courses, example{page, lines[i], b})
			}
		}
	}
	if len(lessons) < 2 || len(courses) < 2 {
		t.Fatalf("%d lesson and %d course examples found; README.md and docs/lessons.md show one of each", len(lessons), len(courses))
	}
	for i, ex := range lessons {
		f := filepath.Join(mine, fmt.Sprintf("%03d-example.lesson", i+1))
		if err := os.WriteFile(f, []byte(ex.text), 0o644); err != nil {
			t.Fatal(err)
		}
		// Each alone, so that a failure names its page.
		one := t.TempDir()
		if err := os.WriteFile(filepath.Join(one, "x.lesson"), []byte(ex.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, stderr := runCLI(t, "check", "--lessons", one); code != exitOK {
			t.Errorf("%s:%d: the lesson example, check --lessons: exit %d\n%s%s", ex.page, ex.line, code, out, stderr)
		}
	}
	for _, ex := range courses {
		f := filepath.Join(dir, "example.course")
		if err := os.WriteFile(f, []byte(ex.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runCLI(t, "check", "--course", f)
		if code != exitOK || !strings.Contains(out, "cells meet their expectation") {
			t.Errorf("%s:%d: the course example, check --course: exit %d\n%s%s", ex.page, ex.line, code, out, stderr)
		}
	}
}

// firstWord is the first word of a file in the lesson format: of its
// first line that is not empty or a comment.
func firstWord(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			return f[0]
		}
	}
	return ""
}

// Issue #28 item 4: docs/lessons.md's annotated example is
// 030-get-then-del.lesson as it is, up to its story: with the page's
// annotations taken away (the comments at the ends of lines, and lines that
// are only an indented comment), the two are the same.
func TestLessonsPageExampleIsTheFile(t *testing.T) {
	blocks, _ := fencedBlocks(t, repoPath("docs/lessons.md"))
	var example string
	for _, b := range blocks {
		if strings.Contains(b, "\nlesson get-then-del ") {
			example = b
			break
		}
	}
	if example == "" {
		t.Fatal("docs/lessons.md shows no lesson get-then-del")
	}
	annotation := regexp.MustCompile(`\s{2,}# .*$`)
	var lines []string
	for _, l := range strings.Split(example, "\n") {
		if strings.TrimSpace(l) != l && strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		lines = append(lines, annotation.ReplaceAllString(l, ""))
	}
	shown := strings.Join(lines, "\n")
	file, err := os.ReadFile(repoPath("scenarios/lessons/030-get-then-del.lesson"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(file), "story en")
	if got, _, _ := strings.Cut(shown, "story en"); got != head {
		t.Errorf("docs/lessons.md's example is not 030-get-then-del.lesson (go generate ./... quotes it afresh, with the page's annotations); the page shows:\n%s\nthe file has:\n%s", got, head)
	}
}

// Issue #28: every lockstep command line the docs show (in README.md and
// docs/*.md, as "go run . …" or "lockstep …") names a command that exists,
// with flags it has and values they take, and a scenario or
// implementation that exists. A command is not run — some open the TUI or
// search for minutes — but parsed as the command line would parse it.
func TestDocsCommandLinesParse(t *testing.T) {
	pages, err := filepath.Glob(repoPath("docs/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The pages' paths (a lock of one's own, examples/python/mylock.py)
	// are the repository's.
	for i, p := range pages {
		if pages[i], err = filepath.Abs(p); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := filepath.Abs(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(repoRoot)
	seen := 0
	for _, page := range append([]string{readme}, pages...) {
		blocks, lines := fencedBlocks(t, page)
		for i, b := range blocks {
			ls := strings.Split(b, "\n")
			for j, l := range ls {
				args, ok := docCommand(l)
				if !ok {
					continue
				}
				seen++
				if j+1 < len(ls) && strings.HasPrefix(ls[j+1], "lockstep: ") {
					// An example of a mistake, with what lockstep says:
					// it says that, up to the page's "…".
					shown, _, _ := strings.Cut(ls[j+1], "…")
					if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.HasPrefix(stderr, shown) {
						t.Errorf("%s:%d: %s: exit %d, %q; the page shows %q", page, lines[i]+j, l, code, stderr, ls[j+1])
					}
					continue
				}
				if err := parseOnly(args); err != nil {
					t.Errorf("%s:%d: %s: %v", page, lines[i]+j, strings.TrimSpace(l), err)
				}
			}
		}
	}
	if seen < 40 {
		t.Errorf("only %d command lines found in the docs", seen)
	}
}

// docCommand is the arguments of a lockstep command on a line of a shell
// example: after "go run ." or "lockstep", up to a comment, a pipe or a
// redirection. Usage brackets ("[--impl NAME]") are unwrapped; lines with
// placeholders a reader fills in ("<TAB>", "$EDITOR", "…") are skipped.
func docCommand(l string) ([]string, bool) {
	l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
	var rest string
	switch {
	case strings.HasPrefix(l, "go run . "), l == "go run .":
		rest = strings.TrimPrefix(l, "go run .")
	case strings.HasPrefix(l, "lockstep "), l == "lockstep":
		rest = strings.TrimPrefix(l, "lockstep")
	default:
		return nil, false
	}
	if strings.ContainsAny(rest, "<$…") || strings.Contains(rest, "...") {
		return nil, false
	}
	if i := strings.IndexAny(rest, "#|>;&"); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.NewReplacer("[", "", "]", "").Replace(rest)
	return strings.Fields(rest), true
}

// parseOnly parses args as lockstep would, without running the command:
// the command, its flags and their values, and the names of scenarios and
// implementations.
func parseOnly(args []string) error {
	a := &cli{stdout: io.Discard}
	root := a.newRoot()
	root.InitDefaultCompletionCmd()
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil && !errors.Is(err, pflag.ErrHelp) {
		return err
	}
	pos := c.Flags().Args()
	if c == root && len(pos) > 0 {
		return fmt.Errorf("unknown command %q", pos[0])
	}
	if c.Name() == "play" && len(pos) == 1 {
		if _, err := scenarios.Lookup(pos[0]); err != nil {
			return err
		}
	}
	for _, name := range []string{"impl", "scenario"} {
		f := c.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		for _, v := range strings.Split(f.Value.String(), ",") {
			var err error
			if name == "impl" {
				_, err = lockimpl.Lookup(v)
			} else {
				_, err = scenarios.Lookup(v)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
