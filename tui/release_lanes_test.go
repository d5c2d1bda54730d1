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

// A reader of a read-write lock holds it "(read)": in read-write ×
// redisson-rw, A and B hold the lock at once, and a list that said "holds"
// twice would read as the mutual exclusion the lesson says is kept. The
// writer, C, holds it plainly; under a lock with no read mode every client
// does.
func TestClientListSaysAReaderHoldsToRead(t *testing.T) {
	says := func(impl, lang string) map[string]bool {
		m := newTest(t, Options{Scenario: "read-write", Impl: impl}, 120, 40)
		tr, st := m.player.tr, NewStyles()
		seen := map[string]bool{}
		for i := range tr.Events {
			for _, l := range clientLines(st, lang, tr, i) {
				seen[l] = true
			}
		}
		return seen
	}
	rw := says("redisson-rw", "en")
	for _, reader := range []string{"A", "B", "D"} {
		if !rw[reader+" holds "+reader+"#1 (read)"] {
			t.Errorf("redisson-rw: no step where the list says %s holds %s#1 (read)", reader, reader)
		}
		if rw[reader+" holds "+reader+"#1"] {
			t.Errorf("redisson-rw: reader %s holds without (read)", reader)
		}
	}
	if !rw["C holds C#1"] || rw["C holds C#1 (read)"] {
		t.Error("redisson-rw: the writer C does not hold plainly")
	}
	if !says("redisson-rw", "zh")["B 持有锁 B#1（读）"] {
		t.Error("redisson-rw: the Chinese list never says B 持有锁 B#1（读）")
	}
	if mutex := says("uuid-lua", "en"); mutex["B holds B#1 (read)"] || !mutex["B holds B#1"] {
		t.Error("uuid-lua: a reader under a lock with no read mode holds it whole, and the list should say holds")
	}
}
