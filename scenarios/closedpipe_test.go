package scenarios

import (
	"strings"
	"testing"
)

// Issue #29 item 6: no trace line of any cell, in English or in Chinese,
// shows "closed pipe" — the embedded servers' in-process connections are
// the simulator's, and Redis never says it. A client whose server died
// meets what a go-redis client meets on a TCP connection: a refused dial
// while nothing is promoted, the new primary once Sentinel has promoted
// one.
func TestNoTraceShowsAClosedPipe(t *testing.T) {
	cells := 0
	for _, r := range sharedCheck(t) {
		if r.Trace == nil {
			continue
		}
		for _, e := range r.Trace.Events {
			for _, s := range []string{e.Command, e.Reply, e.Text.EN, e.Text.ZH, e.Short.EN, e.Short.ZH} {
				if strings.Contains(s, "closed pipe") {
					t.Errorf("%s × %s, step %d: %q", r.Scenario, r.Impl, e.Step, s)
				}
			}
		}
		for _, v := range r.Trace.Verdicts {
			for _, s := range []string{v.Reason.EN, v.Reason.ZH} {
				if strings.Contains(s, "closed pipe") {
					t.Errorf("%s × %s, %s verdict: %q", r.Scenario, r.Impl, v.Invariant, s)
				}
			}
		}
		cells++
	}
	if cells == 0 {
		t.Fatal("no traces in the matrix")
	}
}
