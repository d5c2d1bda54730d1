package locktest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// On embedded servers a lesson is the same run every time for a lock that
// does the same thing every time: virtual time, the same schedule, and
// its own tokens named canonically in the trace (A~1). A lock that draws
// its waits from math/rand, or reads the wall clock behind the engine's
// back, may break different invariants from one run of a lesson to the
// next, and a verdict of one run then says little. So each lesson runs a
// second time, and a lesson whose two runs differ in what they broke (or
// in whether they could run at all) is an error of the check: "its
// verdicts differ between two runs", with the step where the two traces
// part. Real servers keep to the wall clock and are not held to this.

// again runs the lessons a second time and says where the verdicts of
// the two runs differ: the first such lesson, the step where its runs
// part, and how many other lessons differ too.
func (c *config) again(info lockimpl.Info, lessons []scenarios.Scenario, first []scenarios.Result) []string {
	if c.redis != "" || c.once {
		return nil
	}
	second, err := c.runLessons(lessons, info)
	if err != nil || len(second) != len(first) {
		return nil
	}
	var differ []int
	for i := range first {
		if outcome(first[i]) != outcome(second[i]) {
			differ = append(differ, i)
		}
	}
	if len(differ) == 0 {
		return nil
	}
	i := differ[0]
	a, b := first[i], second[i]
	msg := fmt.Sprintf("%s × %s: its verdicts differ between two runs of the same lesson (first: %s; second: %s), so neither run's can be trusted: the lock does something that differs from run to run (a wait drawn from math/rand, the wall clock read behind the run's back); %s",
		lessons[i].ID, info.Name, outcome(a), outcome(b), part(a.Trace, b.Trace))
	if n := len(differ) - 1; n > 0 {
		ids := make([]string, n)
		for j, k := range differ[1:] {
			ids[j] = lessons[k].ID
		}
		msg += fmt.Sprintf("; %d more lessons differ so: %s", n, strings.Join(ids, ", "))
	}
	return []string{msg}
}

// outcome is what a run of a lesson came to: the invariants it broke, or
// that it could not run.
func outcome(r scenarios.Result) string {
	switch {
	case r.Error != "":
		return "could not run"
	case r.Skipped != "":
		return "skipped"
	}
	var broken []string
	for _, v := range r.Verdicts {
		if v.Broken {
			broken = append(broken, v.Invariant)
		}
	}
	if len(broken) == 0 {
		return "nothing broken"
	}
	return strings.Join(broken, ", ") + " broken"
}

// part says at which step two traces of one lesson part, and what each
// did there.
func part(a, b *trace.Trace) string {
	if a == nil || b == nil {
		return "one of the runs has no trace"
	}
	n := min(len(a.Events), len(b.Events))
	i := 0
	for i < n && line(a.Events[i]) == line(b.Events[i]) {
		i++
	}
	at := func(tr *trace.Trace) string {
		if i >= len(tr.Events) {
			return "the run had ended"
		}
		return line(tr.Events[i])
	}
	return fmt.Sprintf("the runs part at step %d: the first has %q, the second %q", i, at(a), at(b))
}

// line is an event as the comparison sees it: when, who, and what.
func line(e trace.Event) string {
	what := e.Text.EN
	if e.Command != "" {
		what = e.Command + " → " + e.Reply
	}
	return strings.Join(slices.DeleteFunc([]string{"t=" + narrate.Secs(e.T), e.Actor, what}, func(s string) bool { return s == "" }), " ")
}
