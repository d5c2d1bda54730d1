package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A client whose work fails (Program.Fail) stops after Fail instead of
// Work, writes nothing, and releases all the same, as a finally block
// does: B, retrying every second, gets the lock at t=2.5s and reads the
// stock A never wrote. Without Fail A works its 10s and B waits for that.
func TestFailReleasesInFinally(t *testing.T) {
	script := func(fail time.Duration) Script {
		return func(tl *Timeline) {
			tl.Client("A", model.Program{Work: 10 * time.Second, Fail: fail})
			tl.Client("B", model.Program{Start: 500 * time.Millisecond, Retry: time.Second, Work: 3 * time.Second})
			tl.RunToEnd()
		}
	}
	tr := run(t, model.Setup{}, "uuid-lua", script(2*time.Second))
	i := slices.IndexFunc(tr.Events, func(e trace.Event) bool { return e.Actor == "A" && e.Snap.Clients[0].Op == trace.OpFail })
	if i < 0 {
		t.Fatal("no event with A at op fail")
	}
	if e := tr.Events[i]; e.T != 2*time.Second || e.Kind != trace.KindBelief ||
		e.Text.EN != "A's work fails with an error after 2s; it writes nothing, and its finally block releases the lock" ||
		e.Text.ZH != "A 的业务执行 2 秒后抛出异常；它什么也不写，由 finally 块释放锁" {
		t.Errorf("A's failure: %+v, want it narrated at t=2s", e)
	}
	for _, e := range tr.Events {
		if e.Kind == trace.KindResource && e.Actor == "A" && strings.Contains(e.Text.EN, "writes") {
			t.Errorf("A wrote though its work failed: %s", e.Text.EN)
		}
	}
	if at := acquiredAt(tr, "B"); at != 2500*time.Millisecond {
		t.Errorf("B gets the lock at t=%s, want t=2.5s: A's finally released it at t=2s", at)
	}
	if got := brokenInvariants(tr); len(got) != 0 {
		t.Errorf("broke %v, want nothing", got)
	}
	if v := last(tr).Resource.Value; v != 99 {
		t.Errorf("stock %d at the end, want 99: B's sale only", v)
	}
	if at := acquiredAt(run(t, model.Setup{}, "uuid-lua", script(0)), "B"); at != 10500*time.Millisecond {
		t.Errorf("without a failure B gets the lock at t=%s, want t=10.5s", at)
	}
}

// acquiredAt is when client c first believes it holds the lock, or -1.
func acquiredAt(tr *trace.Trace, c string) time.Duration {
	for _, e := range tr.Events {
		if e.Kind == trace.KindBelief && e.Actor == c && strings.HasPrefix(e.Text.EN, c+" now holds the lock") {
			return e.T
		}
	}
	return -1
}
