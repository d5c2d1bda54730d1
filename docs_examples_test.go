package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

// Issue #28: the lessons and courses the README shows work as printed. Each
// lesson example is checked with check --lessons, as the README tells an
// instructor to; each course is read with the page's lesson examples in
// its lessons directory. (docs/lessons.md's examples are annotated with
// comments at the ends of lines, which the formats do not accept yet.)
func TestDocsExamplesRun(t *testing.T) {
	for _, page := range []string{"README.md"} {
		blocks, lines := fencedBlocks(t, page)
		dir := t.TempDir()
		mine := filepath.Join(dir, "mine")
		if err := os.Mkdir(mine, 0o755); err != nil {
			t.Fatal(err)
		}
		var courses []int
		lessons := 0
		for i, b := range blocks {
			first := strings.TrimSpace(strings.SplitN(strings.TrimLeft(b, "#\n "), "\n", 2)[0])
			switch {
			case strings.HasPrefix(first, "lesson "):
				lessons++
				f := filepath.Join(mine, fmt.Sprintf("%03d-example.lesson", lessons))
				if err := os.WriteFile(f, []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(first, "course "):
				courses = append(courses, i)
			}
		}
		if lessons == 0 || len(courses) == 0 {
			t.Errorf("%s: %d lesson and %d course examples found; the README shows one of each", page, lessons, len(courses))
		}
		if lessons > 0 {
			if code, out, stderr := runCLI(t, "check", "--lessons", mine); code != exitOK {
				t.Errorf("%s: its lesson examples, check --lessons: exit %d\n%s%s", page, code, out, stderr)
			}
		}
		for _, i := range courses {
			f := filepath.Join(dir, "example.course")
			if err := os.WriteFile(f, []byte(blocks[i]), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := readCourse(f); err != nil {
				t.Errorf("%s:%d: the course example does not read: %v", page, lines[i], err)
				continue
			}
			// Its lessons, checked as a class would before the lesson.
			code, out, stderr := runCLI(t, "check", "--course", f)
			if code != exitOK || !strings.Contains(out, "cells meet their expectation") {
				t.Errorf("%s:%d: check --course: exit %d\n%s%s", page, lines[i], code, out, stderr)
			}
		}
	}
}

// Issue #28 item 4: docs/lessons.md's annotated example is
// 030-get-then-del.lesson as it is, up to its story: with the page's
// annotations taken away (the comments at the ends of lines, and lines that
// are only an indented comment), the two are the same.
func TestLessonsPageExampleIsTheFile(t *testing.T) {
	blocks, _ := fencedBlocks(t, "docs/lessons.md")
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
	file, err := os.ReadFile("scenarios/lessons/030-get-then-del.lesson")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(file), "story en")
	if got, _, _ := strings.Cut(shown, "story en"); got != head {
		t.Errorf("docs/lessons.md's example is not 030-get-then-del.lesson; the page shows:\n%s\nthe file has:\n%s", got, head)
	}
}
