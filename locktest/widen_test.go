package locktest

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
)

// Issue #38, item 2: the wide search of the catalogue's own uuid-lua breaks
// no liveness. A crashed holder's lease runs out at the instant the bound
// does; the waiter's retry due then is judged after it has run, not before
// (it reported "liveness broken in 11 moves: A, A, B, B, C, crash A, time,
// C, crash B, time, C"). What a pause breaks — mutex and the stale write,
// as for every lease lock — the search still finds, and is allowed here;
// the search finishes at Widen's depth, and Run passes and says in its log
// how long the search took. About 25 s on two cores: LOCKSTEP_LONG=1.
func TestLongWidenUUIDLua(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("the wide search, 25 s: LOCKSTEP_LONG=1 runs it")
	}
	info, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	// CI runs it at nice 15 beside its other steps: it may get a fraction
	// of a core, and Widen's ten minutes are not the point here.
	opts := []Option{Widen(), SearchTimeout(25 * time.Minute), lessonsByID(t, "oversell"),
		Allow(Explored, invariant.Mutex, invariant.Resource), TraceDir(t.TempDir())}
	r := &recorder{TB: t}
	Run(r, info, opts...)
	for _, e := range r.errs {
		t.Error(e)
	}
	logs := strings.Join(r.logs, "\n")
	if !strings.Contains(logs, "uuid-lua: the search (3 clients, 2 attempts, faults expiry,crash,pause) finished: every schedule of up to 14 moves of the 14 asked") {
		t.Errorf("the log does not say the search finished:\n%s", logs)
	}
	t.Log(logs)
}
