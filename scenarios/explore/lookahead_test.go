package explore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Expanding new states ahead of their level (lookahead) changes where an
// expansion is made, not what it is: a search finds the same, with the same
// schedules, in the same states, as one that replays every state at its own
// level — with counterexamples, a state budget, a prefix, goroutines of
// the lock's own, and under Named.
func TestLookaheadFindsTheSame(t *testing.T) {
	heavy(t)
	pause := []trace.Fault{sim.FaultExpiry, sim.FaultPause}
	for i, tc := range []struct {
		impl string
		opts Options
	}{
		{"set-nx-ex", Options{Faults: pause, Depth: 10}},
		{"uuid-get-del", Options{Clients: 3, Depth: 12}},
		{"uuid-lua", Options{Clients: 3, Attempts: 2, Depth: 14}},
		{"uuid-lua-watchdog", Options{Faults: pause, Depth: 9}},
		{"redlock", Options{Faults: pause, Depth: 7}},
		{"redsync", Options{Depth: 8}},
		{"setnx", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash}, Attempts: 3, Depth: 10, MaxStates: 300}},
		{"set-nx-ex", Options{Named: true, Depth: 10}},
		{"uuid-lua", Options{Prefix: []string{"A", "B"}, Depth: 8}},
	} {
		t.Run(fmt.Sprintf("%d-%s", i, tc.impl), func(t *testing.T) {
			t.Parallel()
			in, err := lockimpl.Lookup(tc.impl)
			if err != nil {
				t.Fatal(err)
			}
			var got [2]string
			for i, ahead := range []int{0, lookahead} {
				r, err := searchAhead(context.Background(), in, tc.opts, ahead)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = outcome(r)
			}
			if got[0] != got[1] {
				t.Errorf("each state replayed at its level:\n%s\nlooking ahead %d levels:\n%s", got[0], lookahead, got[1])
			}
		})
	}
}

// outcome is what a search found and how far it looked, its
// counterexamples' schedules included.
func outcome(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d states, depth %d, complete %v, over budget %v\n", r.States, r.Depth, r.Complete, r.OverBudget)
	for _, f := range r.Found {
		fmt.Fprintf(&b, "%s in %d: %s\n", f.Invariant, f.Moves, strings.Join(f.Trace.Schedule.Moves, ", "))
	}
	return b.String()
}
