package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// A cell that could not run (its implementation panicked) shows as err in
// the table, with its reason below, and as a JUnit error; the other cells
// stand.
func TestCellErrors(t *testing.T) {
	results := []scenarios.Result{
		{Scenario: "get-then-del", Impl: "mylock", Broken: []string{}, Expected: []string{}, Error: "A: the lock implementation mylock panicked: boom"},
		{Scenario: "get-then-del", Impl: "uuid-lua", Broken: []string{}, Expected: []string{}, Pass: true},
	}
	var b bytes.Buffer
	if err := Matrix(&b, results, "en"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"get-then-del  err  —", "ERROR get-then-del × mylock: A: the lock implementation mylock panicked: boom", "1 of 2 cells do not meet"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := JUnit(&b, results); err != nil {
		t.Fatal(err)
	}
	if x := b.String(); !strings.Contains(x, `errors="1"`) || !strings.Contains(x, `<error message="A: the lock implementation mylock panicked: boom" type="run failed">`) {
		t.Errorf("JUnit:\n%s", x)
	}
}
