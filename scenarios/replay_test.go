package scenarios_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// traceSums is one line per cell, "<scenario> <impl> <sha256 of the trace's
// JSON>", as the Go timelines produced them before the lessons became files
// (LOCKSTEP_WRITE_TRACE_SUMS=1 wrote it). The lesson files must replay them
// byte for byte.
const traceSumsFile = "testdata/traces.sha256"

func traceSums(t *testing.T, results []scenarios.Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range results {
		data, err := json.Marshal(r.Trace)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %x\n", r.Scenario, r.Impl, sha256.Sum256(data))
	}
	return b.String()
}

// The twelve failure modes that were Go timelines replay byte for byte from
// their lesson files. A cell whose sum differs shows as a diff of its text:
// from its golden, in TestTraceTextsMatchTheirGoldens, for a lesson's naive
// implementation and fix, and here, for the first few others, from the
// trace made at the commit that last wrote the sums.
func TestLessonFilesReplayTheGoTimelines(t *testing.T) {
	results := scenarios.SharedCheck(t)
	got := traceSums(t, results)
	if os.Getenv("LOCKSTEP_WRITE_TRACE_SUMS") == "1" {
		if err := os.WriteFile(traceSumsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(traceSumsFile)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for l := range strings.SplitSeq(got, "\n") {
		have[l] = true
	}
	golden := goldenCells()
	var changed []string
	for l := range strings.SplitSeq(string(want), "\n") {
		if l == "" || have[l] {
			continue
		}
		id, rest, _ := strings.Cut(l, " ")
		impl, _, _ := strings.Cut(rest, " ")
		cell := id + " " + impl
		if golden[cell] {
			t.Errorf("cell's trace differs from the Go timeline's: %s (TestTraceTextsMatchTheirGoldens diffs its text)", l)
			continue
		}
		t.Errorf("cell's trace differs from the Go timeline's: %s", l)
		changed = append(changed, cell)
	}
	if len(changed) == 0 {
		return
	}
	if len(changed) > maxBaseDiffs {
		t.Logf("%d cells without a text golden changed; the diffs below are of the first %d", len(changed), maxBaseDiffs)
		changed = changed[:maxBaseDiffs]
	}
	now := map[string]string{}
	for _, r := range results {
		if cell := r.Scenario + " " + r.Impl; slices.Contains(changed, cell) {
			now[cell] = traceText(t, r.Trace)
		}
	}
	diffs, err := baseDiffs(t, changed, now)
	if err != nil {
		t.Logf("no diffs of the changed traces: %v; the sums above are all there is (LOCKSTEP_WRITE_TRACE_SUMS=1 writes them afresh)", err)
		return
	}
	t.Logf("the changed cells' text, from %s's trace to this one's (LOCKSTEP_WRITE_TRACE_SUMS=1 writes the sums afresh):\n%s", diffs.base, diffs.text)
}

// maxBaseDiffs is how many changed cells without a text golden the sums
// test diffs: a change to every trace (a renamed event, a new column)
// reads in a few, and each costs a run of the commit's lockstep.
const maxBaseDiffs = 5

type baseDiff struct {
	base string // the commit's short hash and subject
	text string
}

// baseDiffs diffs each cell's text now from the text lockstep play printed
// for it at the commit that last wrote traces.sha256, the traces the sums
// were made from. It checks that commit out in a temporary worktree and
// builds its lockstep there: only a failing sums test pays for it.
func baseDiffs(t *testing.T, cells []string, now map[string]string) (baseDiff, error) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return baseDiff{}, fmt.Errorf("no git to find the commit that wrote %s: %w", traceSumsFile, err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return baseDiff{}, fmt.Errorf("no go command to build lockstep at the sums' commit: %w", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(string(out)), nil
	}
	base, err := git(".", "log", "-1", "--format=%H", "--", traceSumsFile)
	if err != nil {
		return baseDiff{}, err
	}
	if base == "" {
		return baseDiff{}, fmt.Errorf("no commit wrote %s", traceSumsFile)
	}
	subject, err := git(".", "log", "-1", "--format=%s", base)
	if err != nil {
		return baseDiff{}, err
	}
	if r := []rune(subject); len(r) > 60 {
		subject = string(r[:60]) + "…"
	}
	subject = fmt.Sprintf("%.12s (%s)", base, subject)
	tmp := t.TempDir()
	tree := filepath.Join(tmp, "base")
	if _, err := git(".", "worktree", "add", "--detach", tree, base); err != nil {
		return baseDiff{}, err
	}
	// The worktree is registered in the repository: it is removed before
	// t.TempDir's cleanup would only delete its files.
	defer func() {
		if _, err := git(".", "worktree", "remove", "--force", tree); err != nil {
			t.Logf("the sums' commit's worktree stays registered: %v", err)
		}
	}()
	bin := filepath.Join(tmp, "lockstep")
	build := exec.CommandContext(ctx, goCmd, "build", "-o", bin, ".")
	build.Dir = tree
	if out, err := build.CombinedOutput(); err != nil {
		return baseDiff{}, fmt.Errorf("go build at %s: %v: %s", subject, err, bytes.TrimSpace(out))
	}
	old := map[string]string{}
	for _, cell := range cells {
		id, impl, _ := strings.Cut(cell, " ")
		cmd := exec.CommandContext(ctx, bin, "play", id, "--impl", impl, "--format", "text")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		// play exits non-zero on an unmet expectation, with the trace
		// printed all the same.
		if err != nil && len(out) == 0 {
			return baseDiff{}, fmt.Errorf("play %s --impl %s at %s: %v: %s", id, impl, subject, err, strings.TrimSpace(stderr.String()))
		}
		old[cell] = string(out)
	}
	return baseDiff{base: subject, text: cellDiffs(base, cells, old, now)}, nil
}

// cellDiffs is each cell's diff from its text at base (old) to its text
// now, headed by the cell's name.
func cellDiffs(base string, cells []string, old, now map[string]string) string {
	var b strings.Builder
	for _, cell := range cells {
		id, impl, _ := strings.Cut(cell, " ")
		name := id + " × " + impl
		before, was := old[cell]
		after, is := now[cell]
		switch {
		case !was:
			fmt.Fprintf(&b, "%s: no trace at %.12s\n", name, base)
		case !is:
			fmt.Fprintf(&b, "%s is no cell any more\n", name)
		default:
			d := traceDiff(name+" at "+fmt.Sprintf("%.12s", base), name+" now", before, after)
			if d == "" {
				d = "its text is the same; only its JSON changed\n"
			}
			fmt.Fprintf(&b, "%s:\n%s", name, d)
		}
	}
	return b.String()
}

// The sums' commit builds and plays a cell as this tree does: with the
// sums passing, its text there is the text here. It builds lockstep at that
// commit (about 50 s here), so it runs under LOCKSTEP_LONG=1 only.
func TestBaseDiffsBuildTheSumsCommit(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("LOCKSTEP_LONG=1 builds lockstep at the commit that wrote the sums (50 s)")
	}
	cell := "del-other uuid-lua"
	now := map[string]string{}
	for _, r := range scenarios.SharedCheck(t) {
		if r.Scenario+" "+r.Impl == cell {
			now[cell] = traceText(t, r.Trace)
		}
	}
	d, err := baseDiffs(t, []string{cell}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := "del-other × uuid-lua:\nits text is the same; only its JSON changed\n"; d.text != want {
		t.Errorf("del-other × uuid-lua at %s, diffed from now:\n%s\nwant %q", d.base, d.text, want)
	}
}
