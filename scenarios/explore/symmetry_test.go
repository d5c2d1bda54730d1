package explore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Counting states that differ only in which client is which, or which
// Redlock node is which, as one state loses nothing: the same invariants
// break, each first at the same depth, and the search reaches as deep —
// with fewer states, far fewer with three clients or three nodes.
func TestSymmetryFindsTheSame(t *testing.T) {
	heavy(t)
	pause := []trace.Fault{sim.FaultExpiry, sim.FaultPause}
	symmetryFindsTheSame(t, []symmetryCase{
		{"uuid-get-del", Options{}},
		{"set-nx-ex", Options{Faults: pause, Depth: 10}},
		{"setnx", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash}, Attempts: 3, Depth: 10}},
		{"uuid-lua", Options{Clients: 3, Faults: pause, Depth: 8}},
		{"uuid-get-del", Options{Clients: 3, Depth: 12}},
		// Redlock's searches here stop short; TestLongSymmetryFindsTheSame
		// takes them deeper.
		{"redlock", Options{Faults: pause, Depth: 7}},
		{"redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultClockJump}, Depth: 7}},
		{"redsync-redlock", Options{Depth: 5}},
	})
}

// The Redlock cases two moves deeper: each takes seconds.
func TestLongSymmetryFindsTheSame(t *testing.T) {
	long(t)
	symmetryFindsTheSame(t, []symmetryCase{
		{"redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 9}},
		{"redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultClockJump}, Depth: 9}},
		{"redsync-redlock", Options{Depth: 6}},
	})
}

type symmetryCase struct {
	impl string
	opts Options
}

func symmetryFindsTheSame(t *testing.T, cases []symmetryCase) {
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d-clients/%v/depth-%d", tc.impl, max(tc.opts.Clients, 2), tc.opts.Faults, tc.opts.Depth), func(t *testing.T) {
			t.Parallel()
			named := tc.opts
			named.Named = true
			a, b := search(t, tc.impl, tc.opts), search(t, tc.impl, named)
			if got, want := summary(a), summary(b); got != want {
				t.Errorf("with symmetry %s\nnamed         %s", got, want)
			}
			if a.States >= b.States {
				t.Errorf("with symmetry %d states, named %d", a.States, b.States)
			}
			if tc.opts.Clients == 3 && a.States*3 > b.States {
				t.Errorf("three clients: %d states with symmetry, %d named: less than three times fewer", a.States, b.States)
			}
			if strings.Contains(tc.impl, "redlock") && a.States*3 > b.States {
				t.Errorf("three nodes: %d states with symmetry, %d named: less than three times fewer", a.States, b.States)
			}
			t.Logf("%d states with symmetry, %d named", a.States, b.States)
		})
	}
}

func summary(r Result) string {
	s := fmt.Sprintf("depth %d complete %v:", r.Depth, r.Complete)
	for _, f := range r.Found {
		s += fmt.Sprintf(" %s in %d", f.Invariant, f.Moves)
	}
	return s
}
