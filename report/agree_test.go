package report

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// A cell's mark says what the search missed and what it found beyond the
// lesson; the table counts the cells that agree among those judged.
func TestAgreement(t *testing.T) {
	cells := []scenarios.Agreement{
		{Scenario: "gc-pause", Impl: "uuid-lua", Judged: true, Lesson: []string{"mutex", "resource"}, Found: []string{"mutex", "resource"}},
		{Scenario: "gc-pause", Impl: "redlock", Judged: true, Lesson: []string{"mutex", "resource"}, Found: []string{"mutex", "ownership"},
			Missing: []string{"resource"}, Extra: []string{"ownership"}},
		{Scenario: "gc-pause", Impl: "mine", Found: []string{"mutex"}},
	}
	for i, want := range []string{"=", "-R+O", "·"} {
		if got := AgreeMark(cells[i]); got != want {
			t.Errorf("%s × %s: mark %q, want %q", cells[i].Scenario, cells[i].Impl, got, want)
		}
	}
	gc, err := scenarios.Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Agreement(&b, cells, []scenarios.Scenario{gc}, "en"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"gc-pause  =    -R+O ·",
		"1 uuid-lua · 2 redlock · 3 mine",
		"gc-pause: expiry+pause, 2 clients, 6 attempts, 12 moves, liveness 1m0s",
		"1 of 2 cells agree",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table has no %q:\n%s", want, b.String())
		}
	}
}
