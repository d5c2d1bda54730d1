package locktest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

func lessonsByID(t *testing.T, ids ...string) Option {
	t.Helper()
	var lessons []scenarios.Scenario
	for _, id := range ids {
		s, err := scenarios.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		lessons = append(lessons, s)
	}
	return Lessons(lessons...)
}

// Issue #38, item 9: Check returned only what broke. Inspect says what
// held too, and how far the search got and whether it finished.
func TestInspectSaysWhatHeldAndHowFarTheSearchWent(t *testing.T) {
	info, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(info, lessonsByID(t, "oversell", "setnx-no-ex", "gc-pause"), TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Held, ","); got != "oversell,setnx-no-ex" {
		t.Errorf("held %q, want oversell,setnx-no-ex", got)
	}
	if !containsProblem(r.Problems, "gc-pause", "mutex") || len(r.Errors) > 0 || len(r.Skipped) > 0 {
		t.Errorf("problems %v, errors %q, skipped %q; want gc-pause's mutex only", r.Problems, r.Errors, r.Skipped)
	}
	// uuid-lua with two clients and one attempt has fewer moves in it
	// than the search may make: the search runs out of schedules.
	s := r.Search
	if s == nil || !s.Finished || !s.Complete || s.Depth != SearchDepth || s.Reached == 0 || s.Reached >= SearchDepth || s.States == 0 || s.Clients != 2 {
		t.Fatalf("search %+v; want a complete one, less than %d moves deep", s, SearchDepth)
	}
	if want := fmt.Sprintf("the search (2 clients, 1 attempt, faults expiry) finished: every reachable state explored, %d states, none more than %d moves in", s.States, s.Reached); !strings.HasPrefix(s.String(), want) {
		t.Errorf("search says %q, want it to start %q", s, want)
	}
}

// Run fails once for each lesson that could not run, not once for all of
// them joined (33 lessons made one line of 10.5 KB), and says in the log
// what held and how far the search got.
func TestRunFailsOncePerLessonThatCouldNotRun(t *testing.T) {
	info := lockimpl.Info{Name: "panics", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return panics{} }}
	r := &recorder{TB: t}
	Run(r, info, lessonsByID(t, "oversell", "gc-pause", "del-other"), NoSearch(), TraceDir(t.TempDir()))
	if len(r.errs) != 3 {
		t.Fatalf("Run failed %d times, want 3, one per lesson: %q", len(r.errs), r.errs)
	}
	for i, id := range []string{"oversell", "gc-pause", "del-other"} {
		if !strings.HasPrefix(r.errs[i], "locktest: "+id+" × panics could not run") {
			t.Errorf("failure %d: %q, want %s's", i, r.errs[i], id)
		}
	}
	info, _ = lockimpl.Lookup("uuid-lua")
	r = &recorder{TB: t}
	Run(r, info, lessonsByID(t, "oversell", "gc-pause"), Allow("gc-pause"), TraceDir(t.TempDir()))
	logs := strings.Join(r.logs, "\n")
	for _, want := range []string{"uuid-lua: 1 lesson broke nothing: oversell", "uuid-lua: the search (2 clients, 1 attempt, faults expiry) finished"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}
