package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// myLesson writes an instructor's copy of get-then-del, with its own id,
// an edited story and a fourth client, into a directory outside the repo,
// after edit has had its way with the text.
func myLesson(t *testing.T, edit func(string) string) (dir, file string) {
	t.Helper()
	src := mustRun(t, "lessons", "show", "get-then-del")
	src = strings.Replace(src, "lesson get-then-del", "lesson my-get-then-del", 1)
	src = strings.Replace(src, "client C start=2s retry=10s work=5s\n", "client C start=2s retry=10s work=5s\nclient D start=3s retry=10s work=5s\n", 1)
	src = strings.Replace(src, "story en\n", "story en\nIn our class, D comes too.\n\n", 1)
	if edit != nil {
		src = edit(src)
	}
	dir = t.TempDir()
	file = filepath.Join(dir, "010-mine.lesson")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// lessons show prints a built-in lesson file as it is: it parses back to
// the same lesson. lessons list names them.
func TestLessonsShow(t *testing.T) {
	for _, s := range scenarios.All() {
		out := mustRun(t, "lessons", "show", s.ID)
		if out != string(s.Source) {
			t.Errorf("lessons show %s differs from %s", s.ID, s.File)
		}
		if !strings.Contains(mustRun(t, "lessons", "list"), s.ID) {
			t.Errorf("lessons list has no %s", s.ID)
		}
	}
	code, _, stderr := runCLI(t, "lessons", "show", "nope")
	if code != exitUsage || !strings.Contains(stderr, `unknown scenario "nope"; valid: `) {
		t.Errorf("lessons show nope: exit %d, %q", code, stderr)
	}
}

// An instructor's lesson plays and checks from a directory outside the repo.
func TestInstructorsLessonFromTheCommandLine(t *testing.T) {
	dir, file := myLesson(t, nil)
	out := mustRun(t, "play", "--lesson", file, "--impl", "uuid-get-del")
	if !strings.Contains(out, "clients A B C D") || !strings.Contains(out, "ownership  ✗") {
		t.Errorf("play --lesson:\n%s", out)
	}
	if out := mustRun(t, "check", "--lessons", dir); !strings.Contains(out, "my-get-then-del") || !strings.Contains(out, "meet their expectation") {
		t.Errorf("check --lessons:\n%s", out)
	}
	// An expectation the lesson does not meet: check exits 1.
	dir, _ = myLesson(t, func(s string) string {
		return strings.Replace(s, "    uuid-lua                    -", "    uuid-lua                    mutex", 1)
	})
	if code, out, _ := runCLI(t, "check", "--lessons", dir); code != exitUnmet || !strings.Contains(out, "UNMET my-get-then-del × uuid-lua") {
		t.Errorf("check --lessons with a wrong expectation: exit %d\n%s", code, out)
	}
}

// Bad lesson input: exit 2, the position, nothing run.
func TestBadLessons(t *testing.T) {
	// lessons list names each file where it is in the repository.
	if out := mustRun(t, "lessons", "list"); !strings.Contains(out, "get-then-del             scenarios/lessons/030-get-then-del.lesson\n") {
		t.Errorf("lessons list:\n%s", out)
	}
	if _, err := os.Stat(repoPath("scenarios/lessons/030-get-then-del.lesson")); err != nil {
		t.Error(err)
	}
	_, bad := myLesson(t, func(s string) string { return strings.Replace(s, "unhold A", "unhold Z", 1) })
	misspeltDir, misspelt := myLesson(t, func(s string) string {
		return strings.Replace(s, "    uuid-lua                    -", "    uuid-lau                    -", 1)
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--lesson", bad}, bad + `:31:8: unknown client "Z"; declared: A, B, C, D`},
		{[]string{"check", "--lessons", filepath.Dir(bad)}, bad + `:31:8: unknown client "Z"`},
		{[]string{"play", "--lesson", filepath.Dir(bad)}, "is a directory: --lesson takes one lesson file"},
		{[]string{"check", "--lessons", t.TempDir()}, "has no *.lesson files"},
		{[]string{"play", "get-then-del", "--lesson", bad}, "play --lesson FILE takes no scenario"},
		// Issue #28 item 17: a misspelled implementation in an expect
		// block gets a guess, as on the command line.
		{[]string{"check", "--lessons", misspeltDir}, misspelt + `:43:5: unknown implementation "uuid-lau"; did you mean uuid-lua? valid: no-lock,`},
		// Issue #28 item 14: each says what is wrong.
		{[]string{"check", "--course", "x.course", "--lessons", "mine"}, "--course FILE takes no --lessons: the course names its lessons"},
		{[]string{"lessons"}, "lessons needs a subcommand: list (the built-in lessons, with their files) or show ID"},
		{[]string{"lessons", "lst"}, `unknown command of lessons "lst"; did you mean list? valid: list, show`},
		{[]string{"lessons", "list", "x"}, `lessons list takes no arguments, not "x"`},
		{[]string{"lessons", "show"}, "lessons show takes one lesson id (lockstep lessons list names them)"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("lockstep %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// Issue #28 items 17 and 20: a lesson file that carries a built-in's id
// takes the built-in's place for the run, and each command says so: check
// --lessons, check --course, play --lesson and the TUI, one rule (check
// refused such a file; play took it silently). The file's own expect block
// is what is checked: here uuid-lua is expected to break mutex, which it
// does not, so the cell is unmet.
func TestLessonReplacesBuiltin(t *testing.T) {
	dir, file := myLesson(t, func(s string) string {
		s = strings.Replace(s, "lesson my-get-then-del", "lesson get-then-del", 1)
		return strings.Replace(s, "    uuid-lua                    -", "    uuid-lua                    mutex", 1)
	})
	note := "lockstep: " + file + " replaces the built-in lesson get-then-del (scenarios/lessons/030-get-then-del.lesson) for this run\n"
	course := filepath.Join(dir, "week3.course")
	if err := os.WriteFile(course, []byte("course Week 3\nlessons .\nlesson get-then-del impls=uuid-lua\nlesson gc-pause\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--lessons", dir, "--impl", "uuid-lua"},
		{"check", "--course", course, "--impl", "uuid-lua"},
	} {
		code, out, stderr := runCLI(t, args...)
		if code != exitUnmet || !strings.Contains(out, "UNMET get-then-del × uuid-lua") || stderr != note {
			t.Errorf("lockstep %s: exit %d, stderr %q\n%s", strings.Join(args, " "), code, stderr, out)
		}
	}
	// play takes the file's D, whom the built-in lesson does not have, and
	// says that the file's expect block is unmet (item 17: it did not).
	code, out, stderr := runCLI(t, "play", "--lesson", file, "--impl", "uuid-lua")
	unmet := "lockstep: UNMET get-then-del × uuid-lua: the lesson's expect block says {mutex}, the run broke {}\n"
	if code != exitUnmet || stderr != note+unmet || !strings.Contains(out, "D ") {
		t.Errorf("play --lesson: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "play", "--lesson", file, "--impl", "uuid-get-del"); code != exitOK || stderr != note {
		t.Errorf("play --lesson, a cell that meets its expectation: exit %d, stderr %q", code, stderr)
	}
	// The TUI, without a terminal, prints its usage after the note.
	for _, args := range [][]string{{"--lessons", dir, "--scenario", "get-then-del"}, {"--course", course}} {
		if code, _, stderr := runCLI(t, args...); code != exitOK || stderr != note {
			t.Errorf("lockstep %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	// The built-in lesson itself, with no file, gets no note.
	if code, _, stderr := runCLI(t, "check", "--scenario", "get-then-del", "--impl", "uuid-lua"); code != exitOK || stderr != "" {
		t.Errorf("check: exit %d, stderr %q", code, stderr)
	}
	// Two directories of one course may not both hold a lesson's id.
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(file)
	if err := os.WriteFile(filepath.Join(other, "x.lesson"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(dir, "twice.course")
	if err := os.WriteFile(twice, []byte("course Twice\nlessons .\nlessons other\nlesson get-then-del\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "check", "--course", twice); code != exitUsage || !strings.Contains(stderr, "has the id of another lesson ("+file+")") {
		t.Errorf("two directories with one id: exit %d, %q", code, stderr)
	}
}

// Issue #28 item 17: check --lessons reports the first mistake of every
// bad file in the directory, not only of the first.
func TestCheckLessonsReportsEveryFile(t *testing.T) {
	dir, bad := myLesson(t, func(s string) string { return strings.Replace(s, "unhold A", "unhold Z", 1) })
	src := strings.Replace(mustRun(t, "lessons", "show", "gc-pause"), "lesson gc-pause", "lesson my-gc-pause\nbogus", 1)
	second := filepath.Join(dir, "020-second.lesson")
	if err := os.WriteFile(second, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "check", "--lessons", dir)
	if code != exitUsage || out != "" || !strings.Contains(stderr, "lockstep: "+bad+`:31:8: unknown client "Z"`) || !strings.Contains(stderr, "lockstep: "+second+":") {
		t.Errorf("check --lessons: exit %d, stderr %q", code, stderr)
	}
}

// The TUI's --lessons and --course are read and checked before a terminal
// is needed: a bad file is exit 2 with its position.
func TestTUILessonsAndCourse(t *testing.T) {
	dir, _ := myLesson(t, nil)
	course := filepath.Join(dir, "week3.course")
	if err := os.WriteFile(course, []byte("course Week 3\nlessons .\nlesson get-then-del\nlesson my-get-then-del\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without a terminal the TUI prints its usage: the files were fine.
	for _, args := range [][]string{{"--lessons", dir}, {"--course", course}, {"--lessons", dir, "--scenario", "my-get-then-del"}} {
		if code, out, stderr := runCLI(t, args...); code != exitOK || !strings.Contains(out, "usage:") {
			t.Errorf("lockstep %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	bad := filepath.Join(dir, "bad.course")
	if err := os.WriteFile(bad, []byte("lesson nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "--course", bad); code != exitUsage || !strings.Contains(stderr, bad+`:1:8: unknown lesson "nope"`) {
		t.Errorf("--course with a bad file: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "--course", course, "--scenario", "gc-pause"); code != exitUsage || !strings.Contains(stderr, "--course FILE takes no") {
		t.Errorf("--course with --scenario: exit %d, %q", code, stderr)
	}
}

// check --impl and --scenario run only the cells asked for, in catalogue
// order; unknown names list the valid ones.
func TestCheckFilters(t *testing.T) {
	out := mustRun(t, "check", "--json", "--impl", "uuid-lua,setnx", "--scenario", "get-then-del,setnx-no-ex")
	type cell struct{ Scenario, Impl string }
	var got []string
	for _, c := range decodeJSON[[]cell](t, out) {
		got = append(got, c.Scenario+"×"+c.Impl)
	}
	if want := "setnx-no-ex×setnx setnx-no-ex×uuid-lua get-then-del×setnx get-then-del×uuid-lua"; strings.Join(got, " ") != want {
		t.Errorf("cells %v, want %s", got, want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--impl", "nope"}, `unknown implementation "nope"; valid: no-lock, local-mutex, setnx`},
		{[]string{"check", "--scenario", "nope"}, `unknown scenario "nope"; valid: oversell, setnx-no-ex`},
	} {
		if code, _, stderr := runCLI(t, tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lockstep %s: exit %d, %q", strings.Join(tc.args, " "), code, stderr)
		}
	}
}

// A trace of a lock outside the catalogue (locktest saves them marked
// external) opens as recorded, its schedule included; unmarked, an unknown
// implementation is refused.
func TestExternalTrace(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "explore", "--impl", "set-nx-ex", "--out", dir); code != exitUnmet {
		t.Fatalf("explore: exit %d, %s", code, stderr) // 1: it found a counterexample
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(found) == 0 {
		t.Fatal("explore found nothing to save")
	}
	data, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), `"impl": "set-nx-ex"`, `"impl": "my-lock"`, 1)
	plain := filepath.Join(dir, "plain.json")
	external := filepath.Join(dir, "external.json")
	_ = os.WriteFile(plain, []byte(src), 0o644)
	_ = os.WriteFile(external, []byte(strings.Replace(src, `"schema":`, `"external": true, "schema":`, 1)), 0o644)
	if code, _, stderr := runCLI(t, "play", "--trace", plain); code != exitUsage || !strings.Contains(stderr, `impl: unknown implementation "my-lock"`) {
		t.Errorf("unmarked: exit %d, %q", code, stderr)
	}
	if out := mustRun(t, "play", "--trace", external); !strings.Contains(out, "× my-lock") {
		t.Errorf("external:\n%s", out)
	}
}
