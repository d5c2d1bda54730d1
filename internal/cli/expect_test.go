package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lockstep expect finds the rows a lesson lacks, and exits 1 for them
// without writing; --write puts them back where they were, byte for
// byte; and then the check passes. Two rows are taken out of a copy of
// the built-in lessons: one in the middle of the catalogue, one last.
func TestExpectFindsAndWritesMissingRows(t *testing.T) {
	dir := t.TempDir()
	files, err := filepath.Glob(repoPath("scenarios/lessons/*.lesson"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the built-in lessons: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lesson := filepath.Join(dir, "030-get-then-del.lesson")
	orig, err := os.ReadFile(lesson)
	if err != nil {
		t.Fatal(err)
	}
	cut := string(orig)
	for _, row := range []string{"\n    uuid-get-del                mutex ownership resource", "\n    redsync-redlock             -"} {
		if !strings.Contains(cut, row+"\n") {
			t.Fatalf("030-get-then-del.lesson has no row %q", row)
		}
		cut = strings.Replace(cut, row+"\n", "\n", 1)
	}
	if err := os.WriteFile(lesson, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCLI(t, "expect", "--lessons", dir)
	if code != exitUnmet || stderr != "" {
		t.Fatalf("lockstep expect with two rows missing: exit %d, want %d; stderr:\n%s", code, exitUnmet, stderr)
	}
	for _, want := range []string{
		lesson + ": missing expect uuid-get-del mutex ownership resource\n",
		lesson + ": missing expect redsync-redlock -\n",
		"2 expect rows missing in " + dir + "; lockstep expect --write writes them",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lockstep expect says\n%s\nwithout %q", stdout, want)
		}
	}
	if b, _ := os.ReadFile(lesson); string(b) != cut {
		t.Error("lockstep expect without --write changed the lesson file")
	}

	stdout = mustRun(t, "expect", "--lessons", dir, "--write")
	if !strings.Contains(stdout, lesson+": wrote expect uuid-get-del mutex ownership resource\n") ||
		!strings.Contains(stdout, "wrote 2 expect rows into "+dir) {
		t.Errorf("lockstep expect --write says\n%s", stdout)
	}
	if b, _ := os.ReadFile(lesson); string(b) != string(orig) {
		t.Errorf("lockstep expect --write wrote\n%s\nwant the file as it was\n%s", b, orig)
	}
	if out := mustRun(t, "expect", "--lessons", dir); !strings.Contains(out, "every lesson in "+dir+" has an expect row") {
		t.Errorf("lockstep expect after --write says\n%s", out)
	}
}

// Without --lessons, expect reads the lessons of the repository it runs
// in, found from the working directory up (here internal/cli's), and they
// lack no row; outside any, it says how to name them.
func TestExpectDefaultsToTheRepositorysLessons(t *testing.T) {
	out := mustRun(t, "expect")
	if want := "every lesson in " + repoPath("scenarios/lessons") + " has an expect row"; !strings.HasPrefix(out, want) {
		t.Errorf("lockstep expect in %s says %q, want %q…", repoRoot, out, want)
	}
	if _, err := repoRootFrom(t.TempDir()); err == nil || !strings.Contains(err.Error(), "--lessons DIR") {
		t.Errorf("repoRootFrom outside a repository: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"expect", "x"}, `expect takes no arguments, got "x"`},
		{[]string{"expect", "--lessons", t.TempDir()}, "has no *.lesson files"},
		{[]string{"expect", "--lessons", repoPath("go.mod")}, "is not a directory"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("lockstep %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, exitUsage, tc.want)
		}
	}
}
