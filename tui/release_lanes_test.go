package tui

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A client whose release is under way — its belief is released already,
// its release has commands still to send — is "releasing" in the client
// list, not "released" (issue #41 item 14: get-then-del × uuid-get-del's A
// "released ⏸ parked" between its GET and its DEL).
func TestClientListSaysAReleaseIsUnderWay(t *testing.T) {
	m := newTest(t, Options{Scenario: "get-then-del", Impl: "uuid-get-del"}, 120, 40)
	tr, st := m.player.tr, NewStyles()
	seen := 0
	for i, e := range tr.Events {
		for _, c := range e.Snap.Clients {
			if c.Name != "A" || c.Belief != trace.BeliefReleased {
				continue
			}
			var line string
			for _, l := range clientLines(st, "en", tr, i) {
				if strings.HasPrefix(l, "A ") {
					line = l
				}
			}
			underWay := c.Op == trace.OpRelease
			if underWay {
				seen++
			}
			if says := strings.HasPrefix(line, "A releasing"); says != underWay {
				t.Errorf("step %d: A's op is %s, and the client list says %q", e.Step, c.Op, line)
			}
			zh := clientLines(st, "zh", tr, i)
			if underWay && !strings.Contains(strings.Join(zh, "\n"), "A 释放中") {
				t.Errorf("step %d: the Chinese client list says %q", e.Step, zh)
			}
		}
	}
	if seen == 0 {
		t.Fatal("get-then-del × uuid-get-del has no step where A's release is under way")
	}
}

// The stock lane shows a write the store refused as the value that stays,
// not as "= 99" beside "write 99 ✗", which reads as if it landed; and
// nothing for a read (issue #41 item 15: gc-pause × fenced).
func TestStockLaneShowsARefusedWriteAsRefused(t *testing.T) {
	m := newTest(t, Options{Scenario: "gc-pause", Impl: "fenced"}, 120, 40)
	tr := m.player.tr
	refused := 0
	for i, e := range tr.Events {
		if e.Kind != trace.KindResource || i == 0 {
			continue
		}
		before, after := tr.Events[i-1].Snap.Resource, e.Snap.Resource
		cell := laneCells(tr, i, "en")["stock"]
		switch {
		case after.Rejected > before.Rejected:
			refused++
			if strings.HasPrefix(cell, "=") {
				t.Errorf("step %d: the store refused %s's write, and the stock lane says %q", e.Step, e.Actor, cell)
			}
			if zh := laneCells(tr, i, "zh")["stock"]; !strings.HasPrefix(zh, "仍为") {
				t.Errorf("step %d: the Chinese stock lane says %q for a refused write", e.Step, zh)
			}
		case after.Version != before.Version:
			if want := "= " + strconv.Itoa(after.Value); cell != want {
				t.Errorf("step %d: a write landed, and the stock lane says %q, want %q", e.Step, cell, want)
			}
		default:
			if cell != "" {
				t.Errorf("step %d: a read, and the stock lane says %q", e.Step, cell)
			}
		}
	}
	if refused == 0 {
		t.Fatal("gc-pause × fenced has no refused write")
	}
}
