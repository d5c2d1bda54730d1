package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Sentinel does not fail over the instant the primary dies (issue #29 item
// 11): it waits until the primary has been unreachable for down-after, then
// the Sentinels elect a leader, which promotes the replica. Until then the
// node still means the dead primary, and a client's write fails as it would
// (a refused dial); from the promotion on it reaches the new primary.
func TestSentinelPromotesAfterDownAfter(t *testing.T) {
	setup := model.Setup{Replica: true, Lag: time.Second, DownAfter: 2 * time.Second}
	tr := run(t, setup, "set-nx-ex", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 10 * time.Second})
		tl.RunUntil(500 * time.Millisecond)
		tl.Failover()
		tl.Client("B", model.Program{Start: time.Second, Retry: time.Second, Work: time.Second})
		tl.RunToEnd()
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 1 EX 30 NX → OK",
		"1s B redis-1 SET lock:product:1001 1 EX 30 NX → (error) dial redis-1: connection refused: server is down",
		"2s B redis-1 SET lock:product:1001 1 EX 30 NX → (error) dial redis-1: connection refused: server is down",
		"3s B redis-2 SET lock:product:1001 1 EX 30 NX → OK",
		"4s B redis-2 DEL lock:product:1001 → (integer) 1",
		"10s A redis-2 DEL lock:product:1001 → (integer) 0",
	})
	var faults []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindFault {
			faults = append(faults, narrate.Secs(e.T)+" "+e.Server+" "+e.Short.EN)
			if r := e.Snap.Servers[1]; e.T < 2500*time.Millisecond && r.Role != "replica" {
				t.Errorf("at %s redis-2 is already %s", narrate.Secs(e.T), r.Role)
			}
		}
	}
	equal(t, faults, []string{"0.5s redis-1 DOWN", "2.5s redis-2 promoted"})
}

// Sentinel's own default for down-after-milliseconds is 30 s; a setup that
// says nothing gets it.
func TestDownAfterDefaultsToSentinels(t *testing.T) {
	if got := (model.Setup{Replica: true}).WithDefaults().DownAfter; got != 30*time.Second {
		t.Errorf("default DownAfter = %s, want 30s", got)
	}
}

// A failover while the first one waits for Sentinel changes nothing, and
// the narration of the death says how long Sentinel waits.
func TestFailoverNarratesTheWait(t *testing.T) {
	tr := run(t, model.Setup{Replica: true, Lag: time.Second, DownAfter: time.Second}, "uuid-lua", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 5 * time.Second})
		tl.RunUntil(100 * time.Millisecond)
		tl.Failover()
		tl.Failover()
		tl.RunToEnd()
	})
	n := 0
	for _, e := range tr.Events {
		if e.Kind != trace.KindFault {
			continue
		}
		n++
		if n == 1 && (!strings.Contains(e.Text.EN, "down-after") || !strings.Contains(e.Text.ZH, "哨兵")) {
			t.Errorf("the death does not say Sentinel waits down-after: %q / %q", e.Text.EN, e.Text.ZH)
		}
		if n == 2 && !strings.Contains(e.Text.ZH, "主从切换") {
			t.Errorf("the promotion does not say 主从切换: %q", e.Text.ZH)
		}
	}
	if n != 2 {
		t.Errorf("%d fault events, want the death and the promotion", n)
	}
}
