package explore

import (
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// After every move the trace's last event is at the world's time, so its
// snapshot is the world now: a front end that draws the last event (the
// sandbox) shows the TTLs as they are. Time passing that expires nothing
// used to leave the trace behind, still showing the lease at 30 s at t=5 s
// (issue #15, the sandbox's item 3).
func TestTraceKeepsUpWithTime(t *testing.T) {
	for _, name := range []string{"uuid-get-del", "uuid-lua-watchdog", "redlock"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		faults := []trace.Fault{sim.FaultExpiry, sim.FaultPause, sim.FaultCrash}
		timeMoves := 0
		for walk := range 6 {
			st, err := NewWorld(in, trace.Schedule{Clients: 2, Attempts: 1, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 25; i++ {
				moves := st.Moves()
				if len(moves) == 0 || len(st.Broken()) > 0 {
					break
				}
				m := moves[(walk+i)%len(moves)]
				if err := st.Do(m.ID); err != nil {
					st.Close()
					t.Fatalf("%s: %s after %v: %v", name, m.ID, st.Schedule(), err)
				}
				if m.Kind == sim.MoveTime {
					timeMoves++
				}
				tr := st.Trace()
				if last := tr.Events[len(tr.Events)-1]; last.T != st.Now() {
					t.Errorf("%s after %v: the last event (%s %q) is at t=%s, the world at t=%s",
						name, st.Schedule(), last.Kind, last.Text.EN, last.T, st.Now())
				}
			}
			st.Close()
		}
		if timeMoves == 0 {
			t.Errorf("%s: no walk let time pass", name)
		}
	}
}
