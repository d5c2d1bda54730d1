package locktest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Report is all a check finds: what broke, what held, what was not run and
// why, the runs that could not complete, and how far the search got.
// Inspect returns it; Check returns its problems and errors, and Run fails
// or logs each part.
type Report struct {
	// Problems are the invariants broken, allowed ones included.
	Problems []Problem
	// Held lists the lessons that ran and broke nothing, by id.
	Held []string
	// Skipped lists the lessons not run, each as "id: why" (on real
	// servers, a failover lesson with no replica).
	Skipped []string
	// Errors are the runs that could not complete, one for each lesson
	// (and one for the search), each a whole message.
	Errors []string
	// Search is what the search covered; nil with NoSearch.
	Search *Searched `json:",omitempty"`
}

// Searched is how far the search got.
type Searched struct {
	Clients, Attempts int
	Faults            string
	// Depth is the depth asked for; Reached, the depth every schedule was
	// explored to.
	Depth, Reached int
	States         int
	// Finished says the search reached its depth, or ran out of schedules
	// before it; not when it stopped at its time bound or its budget.
	// Complete says it ran out of schedules: every reachable state was
	// explored, none more than Reached moves in.
	Finished, Complete bool
	Elapsed            time.Duration
}

func (s *Searched) String() string {
	how := "finished"
	if !s.Finished {
		how = "did not finish"
	}
	attempts := "attempts"
	if s.Attempts == 1 {
		attempts = "attempt"
	}
	head := fmt.Sprintf("the search (%d clients, %d %s, faults %s) %s", s.Clients, s.Attempts, attempts, s.Faults, how)
	if s.Complete {
		return fmt.Sprintf("%s: every reachable state explored, %d states, none more than %d moves in, in %s",
			head, s.States, s.Reached, s.Elapsed.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s: every schedule of up to %d moves of the %d asked, %d states, in %s",
		head, s.Reached, s.Depth, s.States, s.Elapsed.Round(time.Millisecond))
}

// add puts r's parts after a's.
func (a *Report) add(r Report) {
	a.Problems = append(a.Problems, r.Problems...)
	a.Held = append(a.Held, r.Held...)
	a.Skipped = append(a.Skipped, r.Skipped...)
	a.Errors = append(a.Errors, r.Errors...)
	if r.Search != nil {
		a.Search = r.Search
	}
}

// err is the report's errors as one error, each on its own line.
func (a *Report) err() error {
	errs := make([]error, len(a.Errors))
	for i, e := range a.Errors {
		errs[i] = errors.New("locktest: " + e)
	}
	return errors.Join(errs...)
}

// Inspect is Check with everything it finds. Its error is one the check
// could not start with (an Info without New, servers it cannot reach);
// the runs that could not complete are the report's Errors.
func Inspect(info lockimpl.Info, opts ...Option) (Report, error) {
	c := newConfig(opts)
	if err := checkInfo(info); err != nil {
		return Report{}, err
	}
	r, err := c.checkLessons(info, c.lessonList())
	if err != nil {
		return Report{}, err
	}
	if c.search {
		r.add(c.checkSearch(info))
	}
	return r, nil
}

// logReport says in t's log what a report holds besides its problems and
// errors: the lessons skipped, the count of those held, the search's reach.
func logReport(t interface{ Logf(string, ...any) }, lock string, r Report) {
	for _, s := range r.Skipped {
		t.Logf("%s: skipped %s", lock, s)
	}
	if n := len(r.Held); n > 0 {
		lessons := "lessons"
		if n == 1 {
			lessons = "lesson"
		}
		t.Logf("%s: %d %s broke nothing: %s", lock, n, lessons, strings.Join(r.Held, ", "))
	}
	if r.Search != nil {
		t.Logf("%s: %s", lock, r.Search)
	}
}
