package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// copyOf is a deep copy of a cached trace, for a test to change.
func copyOf(t testing.TB, c cell) *trace.Trace {
	t.Helper()
	b, err := json.Marshal(allTraces()[c])
	if err != nil {
		t.Fatal(err)
	}
	var tr trace.Trace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr
}

// The player draws a trace from a file whatever its shape: one without
// events or clients used to panic the view (issue "Hardening", item 3).
// lockstep --trace refuses such files; the player does not rely on it.
func TestPlayerOnOddTraces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*trace.Trace)
	}{
		{"no events", func(tr *trace.Trace) { tr.Events = nil }},
		{"no clients", func(tr *trace.Trace) { tr.Clients = nil }},
		{"no servers", func(tr *trace.Trace) { tr.Servers = nil }},
		{"no lease", func(tr *trace.Trace) { tr.TTL = 0 }},
		{"empty snapshots", func(tr *trace.Trace) {
			for i := range tr.Events {
				tr.Events[i].Snap = trace.Snapshot{}
			}
		}},
		{"verdicts out of range", func(tr *trace.Trace) {
			tr.Verdicts = append(tr.Verdicts, trace.Verdict{Invariant: "extra", Broken: true, Step: 99999})
		}},
		{"unknown actors and servers", func(tr *trace.Trace) {
			for i := range tr.Events {
				tr.Events[i].Actor, tr.Events[i].Server = "Z.watchdog", "redis-9"
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := copyOf(t, cell{"get-then-del", "uuid-get-del"})
			tc.mutate(tr)
			for _, size := range [][2]int{{80, 24}, {120, 40}} {
				m := newTest(t, Options{Trace: tr}, size[0], size[1])
				for _, k := range []string{"right", "v", "G", "left", "space", "g", "L", "?", "?", "i", "c"} {
					m, _ = press(m, k)
					fits(t, m.View(), size[0], size[1])
				}
			}
		})
	}
}

// Text from a trace file never reaches the terminal as an escape sequence
// (issue "Hardening", item 5): the player shows control characters as
// visible escapes. The Ascii profile (tui_test.go's init) leaves no styling,
// so the view must have no escape at all.
func TestPlayerEscapesControlCharacters(t *testing.T) {
	const evil = "\x1b[2J\x1b]0;pwned\x07"
	tr := copyOf(t, cell{"get-then-del", "uuid-get-del"})
	tr.Title = text.Text{EN: "title" + evil, ZH: "标题" + evil}
	tr.Scenario += evil
	for i := range tr.Events {
		e := &tr.Events[i]
		e.Text.EN, e.Text.ZH = e.Text.EN+evil, e.Text.ZH+evil
		e.Short.EN, e.Short.ZH = e.Short.EN+evil, e.Short.ZH+evil
		e.Command, e.Reply = e.Command+evil, e.Reply+evil
		for _, srv := range e.Snap.Servers {
			for k := range srv.Keys {
				srv.Keys[k].Value += evil
			}
		}
		for c := range e.Snap.Clients {
			e.Snap.Clients[c].Token += evil
		}
	}
	m := newTest(t, Options{Trace: tr}, 120, 40)
	for _, k := range []string{"", "right", "v", "L", "G", "v"} {
		if k != "" {
			m, _ = press(m, k)
		}
		v := m.View()
		if strings.ContainsAny(v, "\x1b\x07") {
			t.Fatalf("after %q the view has escape codes:\n%q", k, v)
		}
		if !strings.Contains(v, `\x1b[2J`) {
			t.Errorf("after %q the escapes are not shown:\n%s", k, v)
		}
	}
}
