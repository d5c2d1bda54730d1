package explore

import (
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Two schedules that lead to the same state go on alike: each move leads
// both to the same state again. The search counts a state once on that
// ground; a hash that wrote something no move reads (when a goroutine that
// has not run since last woke, which starting it sets again) would tell
// such states apart at the next move only, and the search would explore
// what it had explored. Named hashes: no renaming between the two.
func TestEqualStatesGoOnAlike(t *testing.T) {
	for _, c := range []struct {
		impl string
		opts Options
	}{
		{"uuid-lua", Options{Clients: 3, Attempts: 2, Depth: 12}},
		{"uuid-lua-watchdog", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 9}},
		{"redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 7}},
	} {
		t.Run(c.impl, func(t *testing.T) { equalStatesGoOnAlike(t, c.impl, c.opts, 120) })
	}
}

func equalStatesGoOnAlike(t *testing.T, name string, o Options, pairs int) {
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s := &searcher{impl: in, opts: o.withDefaults()}
	type seen struct {
		moves []string
		next  []string // the moves from it
	}
	visit := func(moves []string) (uint64, []string) {
		st, err := s.replay(moves)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var next []string
		for _, m := range st.Moves() {
			next = append(next, m.ID)
		}
		slices.Sort(next) // flights are listed in the order they were made
		return HashNamed(st.State()), next
	}
	h, next := visit(nil)
	states := map[uint64]seen{h: {nil, next}}
	frontier := []uint64{h}
	checked := 0
	for depth := 0; depth < s.opts.Depth && len(frontier) > 0 && checked < pairs; depth++ {
		var level []uint64
		for _, ph := range frontier {
			for _, m := range states[ph].next {
				c := append(slices.Clip(states[ph].moves), m)
				h, next := visit(c)
				first, ok := states[h]
				if !ok {
					states[h] = seen{c, next}
					level = append(level, h)
					continue
				}
				if slices.Equal(first.moves, c) || checked >= pairs {
					continue
				}
				checked++
				if !slices.Equal(first.next, next) {
					t.Fatalf("%v and %v lead to one state, with the moves %v and %v", first.moves, c, first.next, next)
				}
				for _, x := range next {
					a, _ := visit(append(slices.Clip(first.moves), x))
					b, _ := visit(append(slices.Clip(c), x))
					if a != b {
						t.Fatalf("%v and %v lead to one state, and the move %s from each to two", first.moves, c, x)
					}
				}
			}
		}
		frontier = level
	}
	if checked == 0 {
		t.Fatal("no two schedules met")
	}
	t.Logf("%d states, %d meetings checked", len(states), checked)
}
