package report

import (
	"bytes"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// The renderers draw whatever trace they are given without panicking, even
// one a trace file's validation would refuse: no clients (Mermaid indexed
// the first), more addresses than servers (the timeline indexed the servers
// by address), verdicts beyond the invariants (the handout indexed the
// invariants by verdict), no events at all. Issue "Hardening", item 3.
func TestOddTracesRender(t *testing.T) {
	base := func() *trace.Trace {
		return &trace.Trace{Schema: trace.TraceSchema, Scenario: "odd", Impl: "set-nx-ex", Key: "lock", TTL: 30e9,
			Servers: []string{"redis-1"}, Clients: []string{"A"},
			Events: []trace.Event{{Kind: trace.KindCommand, Actor: "A", Server: "redis-1", Command: "GET lock", Reply: "(nil)"}}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*trace.Trace)
	}{
		{"no clients", func(tr *trace.Trace) { tr.Clients = nil }},
		{"no servers", func(tr *trace.Trace) { tr.Servers = nil }},
		{"more addresses than servers", func(tr *trace.Trace) { tr.Addrs = []string{"a:1", "b:2", "c:3"} }},
		{"more verdicts than invariants", func(tr *trace.Trace) {
			tr.Verdicts = make([]trace.Verdict, len(invariant.Infos())+2)
			tr.Verdicts[len(invariant.Infos())+1] = trace.Verdict{Invariant: "extra", Broken: true, Step: 99}
		}},
		{"no events", func(tr *trace.Trace) { tr.Events = nil }},
		{"an unknown actor and server", func(tr *trace.Trace) { tr.Events[0].Actor, tr.Events[0].Server = "Z", "redis-9" }},
		{"nothing at all", func(tr *trace.Trace) { *tr = trace.Trace{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := base()
			tc.mutate(tr)
			for _, lang := range []string{"en", "zh"} {
				render(t, func(w *bytes.Buffer) error { return Timeline(w, tr, lang) })
				render(t, func(w *bytes.Buffer) error { return Handout(w, tr, lang) })
				render(t, func(w *bytes.Buffer) error { return Mermaid(w, tr, lang) })
			}
			render(t, func(w *bytes.Buffer) error { return JSON(w, tr) })
		})
	}
}
