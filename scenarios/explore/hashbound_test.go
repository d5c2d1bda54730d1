package explore

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Hash gives a writing up as soon as it sorts after the least so far
// (stateUnder); the least it keeps is the least of every writing, written
// whole, on the states of random schedules: three clients (six
// renamings), and Redlock's three nodes.
func TestHashGivesUpOnlyWritingsThatCannotBeLeast(t *testing.T) {
	pause := []trace.Fault{sim.FaultExpiry, sim.FaultPause, sim.FaultCrash}
	rng := rand.New(rand.NewPCG(1, 2))
	states := 0
	for _, tc := range []struct {
		impl string
		opts Options
	}{
		{"uuid-lua", Options{Clients: 3, Attempts: 2, Faults: pause}},
		{"uuid-get-del", Options{Clients: 3, Faults: pause}},
		{"redlock", Options{Clients: 3, Faults: pause}},
		{"redisson", Options{Clients: 3, Faults: pause}},
	} {
		in, err := lockimpl.Lookup(tc.impl)
		if err != nil {
			t.Fatal(err)
		}
		opts := tc.opts.withDefaults()
		for range 10 {
			st, err := NewWorld(in, *opts.schedule(nil))
			if err != nil {
				t.Fatal(err)
			}
			for range 25 {
				moves := st.Moves()
				if len(moves) == 0 {
					break
				}
				if err := st.Do(moves[rng.IntN(len(moves))].ID); err != nil {
					t.Fatal(err)
				}
				v := st.State()
				if got, want := Hash(v), hashWhole(v); got != want {
					t.Errorf("%s after %v: Hash %x, the least whole writing %x", tc.impl, st.Schedule(), got, want)
				}
				states++
			}
			st.Close()
		}
	}
	t.Logf("%d states", states)
}

// hashWhole is Hash as it was before stateUnder: every writing whole.
func hashWhole(st view.State) uint64 {
	tok := newTokenNames(st.Tokens)
	nodes := nodesSymmetric(st)
	var best string
	for i, perm := range symmetries(st) {
		clear(tok.names)
		if s := newWriter(st, perm, tok, nodes).state(); i == 0 || s < best {
			best = s
		}
	}
	h := fnv.New64a()
	h.Write([]byte(best))
	if st.Promoting {
		fmt.Fprintf(h, "P%d", st.PromoteIn)
	}
	return h.Sum64()
}
