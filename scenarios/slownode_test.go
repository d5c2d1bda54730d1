package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// setsOnRedis2 are the command events of A's SETs on redis-2 in tr, in
// order: each one's end (answered, or given up by A) and a late arrival.
func setsOnRedis2(tr *trace.Trace) []trace.Event {
	var out []trace.Event
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand && e.Server == "redis-2" && strings.HasPrefix(e.Actor, "A/") && strings.HasPrefix(e.Command, "SET ") {
			out = append(out, e)
		}
	}
	return out
}

// The course's point, shown: each Redlock node gets a very short timeout,
// so a slow node costs an attempt, not the lease. In redlock-slow-node
// `redlock` stops waiting for redis-2 after its per-node timeout, 0.05s
// (TTL/200 of the 10s lease), not at t=11s when the answer would come; the
// SET still reaches redis-2 at t=11s, where A's next attempt (t=10.1s, a
// new token) holds it. `redlock-no-validity`, with no per-node timeout,
// waits the 11s.
func TestRedlockSlowNodeCostsAnAttempt(t *testing.T) {
	tr := play(t, "redlock-slow-node", "redlock")
	sets := setsOnRedis2(tr)
	if len(sets) < 3 {
		t.Fatalf("A's SETs on redis-2: %d events, want the timeout, the retry and the late arrival", len(sets))
	}
	first := sets[0]
	if first.T != 50*time.Millisecond || first.Reply != "(error) context deadline exceeded" ||
		!strings.Contains(first.Text.EN, "A stops waiting after 0.05s (context deadline exceeded): the command is still on its way to redis-2 and reaches it at t=11s") {
		t.Errorf("A's first SET on redis-2 ends at t=%s with %q: %s; want the per-node timeout at t=0.05s", narrate.Secs(first.T), first.Reply, first.Text.EN)
	}
	retry, late := sets[1], sets[2]
	if retry.T != 10100*time.Millisecond || retry.Command != "SET lock:product:1001 A#2 EX 10 NX" || retry.Reply != "OK" {
		t.Errorf("A's retry on redis-2: t=%s %s → %s, want t=10.1s SET … A#2 … → OK", narrate.Secs(retry.T), retry.Command, retry.Reply)
	}
	if late.T != 11*time.Second || late.Command != "SET lock:product:1001 A#1 EX 10 NX" || late.Reply != "(nil)" ||
		!strings.Contains(late.Text.EN, "A stopped waiting for it at t=0.05s") {
		t.Errorf("the late SET: t=%s %s → %s (%s), want it at t=11s, refused: A#2 is there", narrate.Secs(late.T), late.Command, late.Reply, late.Text.EN)
	}
	if b := tr.Broken(); len(b) != 0 {
		t.Errorf("redlock broke %v", b)
	}

	naive := setsOnRedis2(play(t, "redlock-slow-node", "redlock-no-validity"))
	if len(naive) == 0 || naive[0].T != 11*time.Second || naive[0].Reply != "OK" {
		t.Errorf("redlock-no-validity's SET on redis-2: %v; want it answered OK at t=11s, waited for", naive)
	}
}
