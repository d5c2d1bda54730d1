package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A client's prep (Program.Prep) is work before it asks for the lock: it is
// narrated, the client sends no command until it is done, and it holds
// nothing meanwhile. Split so, 25s of work under a 10s lease breaks nothing
// with uuid-lua; the same 25s inside the lock lets B in while A works.
func TestPrepIsOutsideTheLock(t *testing.T) {
	script := func(prep, work time.Duration) Script {
		return func(tl *Timeline) {
			tl.Client("A", model.Program{Prep: prep, Work: work})
			tl.Client("B", model.Program{Start: time.Second, Retry: 5 * time.Second, Prep: prep, Work: work})
			tl.RunToEnd()
		}
	}
	setup := model.Setup{TTL: 10 * time.Second}
	tr := run(t, setup, "uuid-lua", script(20*time.Second, 5*time.Second))
	i := slices.IndexFunc(tr.Events, func(e trace.Event) bool { return e.Actor == "A" })
	first := tr.Events[max(i, 0)]
	if first.Kind != trace.KindBelief || first.Actor != "A" || first.T != 0 ||
		first.Text.EN != "A prepares for 20s outside the lock" || first.Text.ZH != "A 在锁外做准备工作，耗时 20 秒" {
		t.Errorf("A's first event: %+v, want its prep, narrated", first)
	}
	if c := first.Snap.Clients[0]; c.Op != trace.OpPrep || c.Belief != trace.BeliefIdle {
		t.Errorf("A while it prepares: %+v, want op prep, idle", c)
	}
	cmds := commands(tr)
	if len(cmds) == 0 || !strings.HasPrefix(cmds[0], "20s A ") {
		t.Errorf("first command %q, want A's acquire once its 20s of prep are done", cmds)
	}
	if got := brokenInvariants(tr); len(got) != 0 {
		t.Errorf("split 20s out + 5s in under a 10s lease: broke %v, want nothing", got)
	}
	if v := last(tr).Resource.Value; v != 98 {
		t.Errorf("stock %d at the end, want 98: both sales", v)
	}
	unsplit := run(t, setup, "uuid-lua", script(0, 25*time.Second))
	if !slices.Contains(brokenInvariants(unsplit), invariant.Mutex) {
		t.Errorf("25s inside a 10s lease: broke %v, want mutex", brokenInvariants(unsplit))
	}
}
