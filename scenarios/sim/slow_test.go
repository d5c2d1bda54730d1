package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A command to a slow server runs there latency later, while the rest of
// the world goes on; one sent before the server recovered keeps its delay.
func TestSlowServer(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua", func(tl *Timeline) {
		tl.Slow(0, 5*time.Second)
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Start: time.Second, Retry: 10 * time.Second, Work: time.Second})
		tl.RunUntil(2 * time.Second)
		tl.Slow(0, 0)
		tl.RunToEnd()
	})
	equal(t, commands(tr)[:3], []string{
		"5s A redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		// A's release was sent after the server recovered; B's SET, sent
		// at 1s, arrives at 6s: A's work ends first (same deadline, A
		// came first).
		"6s A redis-1 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
		"6s B redis-1 SET lock:product:1001 B#1 EX 30 NX → OK",
	})
	var sent []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindSchedule && strings.Contains(e.Text.EN, "which is slow") {
			sent = append(sent, narrate.Secs(e.T)+" "+e.Text.EN)
		}
	}
	equal(t, sent, []string{
		"0s A sends SET lock:product:1001 A#1 EX 30 NX to redis-1, which is slow: it arrives in 5s",
		"1s B sends SET lock:product:1001 B#1 EX 30 NX to redis-1, which is slow: it arrives in 5s",
	})
	if b := tr.Broken(); len(b) != 0 {
		t.Errorf("broken: %v", b)
	}
}

// Slowness of a server the world does not have changes nothing.
func TestSlowServerOutsideTheWorld(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua", func(tl *Timeline) {
		tl.Slow(3, 5*time.Second)
		tl.Client("A", model.Program{Work: time.Second})
		tl.RunToEnd()
	})
	if c := commands(tr); !strings.HasPrefix(c[0], "0s A redis-1 SET") {
		t.Errorf("first command %q, want it at 0s", c[0])
	}
}

// A one-way break: the command runs on the server, the client sees a
// timeout; heal ends it.
func TestDropReplies(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Attempts: 1, Work: time.Second})
		tl.Client("B", model.Program{Start: 2 * time.Second, Attempts: 1})
		a.DropReplies(0)
		tl.RunUntil(time.Second)
		a.Heal()
		tl.RunToEnd()
	})
	c := commands(tr)
	if len(c) != 2 || !strings.Contains(c[0], "SET lock:product:1001 A#1 EX 30 NX → (error) A's command ran on redis-1, but the reply was lost") {
		t.Fatalf("commands:\n%s", strings.Join(c, "\n"))
	}
	if !strings.HasSuffix(c[1], "B redis-1 SET lock:product:1001 B#1 EX 30 NX → (nil)") {
		t.Errorf("B's SET: %s, want (nil): A#1 is there though A never heard OK", c[1])
	}
	if !hasText(tr, "the partition heals") {
		t.Error("heal said nothing")
	}
}
