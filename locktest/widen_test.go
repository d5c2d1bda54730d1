package locktest

import (
	"os"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Issue #38, item 2: the wide search of the catalogue's own uuid-lua breaks
// no liveness. A crashed holder's lease runs out at the instant the bound
// does; the waiter's retry due then is judged after it has run, not before.
// What a pause breaks — mutex and the stale write, as for every lease lock
// — the search still finds, and the lessons' problems are the lessons'.
// It takes Widen's bound of ten minutes: on a busy 2-core machine the
// search stops there, every schedule of up to 13 moves explored.
func TestLongWidenUUIDLua(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("the wide search, ten minutes: LOCKSTEP_LONG=1 runs it")
	}
	info, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(info, Widen(), TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if p.Lesson == Explored && p.Invariant == sim.InvLiveness {
			t.Errorf("%s", p)
		}
	}
}
