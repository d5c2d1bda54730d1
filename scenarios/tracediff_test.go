package scenarios_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/aymanbagabas/go-udiff"

	"github.com/lockstep-sim/lockstep/report"
)

// traceText is a trace as lockstep play --format text prints it, in
// English: what the text goldens hold and what a changed trace is diffed
// as, so that a review reads the narration that changed, not a sum.
func traceText(t *testing.T, tr *trace.Trace) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Timeline(&b, tr, "en"); err != nil {
		t.Fatalf("%s × %s: %v", tr.Scenario, tr.Impl, err)
	}
	return b.String()
}

// traceDiff is a unified diff of a cell's trace text, from old to new, or
// "" when they are the same. Each changed line starts with - or +, beside
// three lines of context.
func traceDiff(oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	d := udiff.Unified(oldName, newName, old, new)
	if !strings.HasSuffix(d, "\n") {
		d += "\n"
	}
	return d
}

// A changed line shows as the old one beside the new one, with the
// unchanged lines around it for context, and the labels say which is which.
func TestTraceDiffNamesTheChangedLine(t *testing.T) {
	old := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	new := strings.Replace(old, "five", "FIVE", 1)
	d := traceDiff("a/x.txt", "b/x.txt", old, new)
	for _, want := range []string{"--- a/x.txt\n", "+++ b/x.txt\n", "-five\n", "+FIVE\n", " four\n", " six\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "one") {
		t.Errorf("diff shows a line four away from the change:\n%s", d)
	}
	if d := traceDiff("a", "b", old, old); d != "" {
		t.Errorf("diff of the same text: %q, want none", d)
	}
}

// A cell whose sum changed shows as its diff from the text at the sums'
// commit, under its name; a cell that had no trace then, or has none now,
// says so.
func TestCellDiffsNameTheCellAndItsChangedLine(t *testing.T) {
	base := "0123456789abcdef0123456789abcdef01234567"
	old := map[string]string{
		"del-other uuid-lua": "del-other × uuid-lua\n   0.000    0  » A takes the lock\n   0.000    1  A  A wants the lock\n",
		"del-other redsync":  "same\n",
		"oversell redlock":   "gone\n",
	}
	now := map[string]string{
		"del-other uuid-lua": strings.Replace(old["del-other uuid-lua"], "takes", "grabs", 1),
		"del-other redsync":  "same\n",
		"give-up fenced":     "new\n",
	}
	got := cellDiffs(base, []string{"del-other uuid-lua", "del-other redsync", "oversell redlock", "give-up fenced"}, old, now)
	for _, want := range []string{
		"del-other × uuid-lua:\n--- del-other × uuid-lua at 0123456789ab\n+++ del-other × uuid-lua now\n",
		"-   0.000    0  » A takes the lock\n+   0.000    0  » A grabs the lock\n",
		"del-other × redsync:\nits text is the same; only its JSON changed\n",
		"oversell × redlock is no cell any more\n",
		"give-up × fenced: no trace at 0123456789ab\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("cellDiffs lacks %q:\n%s", want, got)
		}
	}
}
