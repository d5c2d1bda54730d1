package report

import (
	"fmt"
	"io"
	"strings"

	"lockstep/scenarios/sim"
	"lockstep/text"
)

// Mermaid writes a trace as a Mermaid sequenceDiagram: a participant for each
// client, each Redis server and the stock; the commands and replies as
// messages; time passing, expiry, crashes, pauses and failovers as notes;
// violations on a red band. It renders on GitHub and in the Mermaid live
// editor.
func Mermaid(w io.Writer, tr *sim.Trace, lang string) error {
	return MermaidSteps(w, tr, lang, 0, len(tr.Events)-1)
}

// MermaidSteps is Mermaid of the steps from to to (inclusive, numbered
// from 0) of the timeline only, for a slide that shows one moment: every
// participant, the time of the first step shown, a comment that says which
// steps these are. from and to are clamped to the trace.
func MermaidSteps(w io.Writer, tr *sim.Trace, lang string, from, to int) error {
	p := &printer{w: w}
	ids := map[string]string{}
	p.printf("sequenceDiagram\n")
	from, to = max(from, 0), min(to, len(tr.Events)-1)
	if from > 0 || to < len(tr.Events)-1 {
		p.printf("    %%%% steps %d to %d of %s × %s (0 to %d)\n", from, to, tr.Scenario, tr.Impl, len(tr.Events)-1)
	}
	for _, c := range tr.Clients {
		ids[c] = c
		p.printf("    participant %s as %s %s\n", c, text.New("client", "客户端").In(lang), c)
	}
	for i, s := range tr.Servers {
		id := fmt.Sprintf("R%d", i+1)
		ids[s] = id
		p.printf("    participant %s as %s\n", id, mmd(s))
	}
	ids["stock"] = "S"
	p.printf("    participant S as %s\n", text.New("stock", "库存").In(lang))
	// A note across the diagram spans the first client to the stock (a
	// trace without clients only the stock).
	span := "S"
	if len(tr.Clients) > 0 {
		span = ids[tr.Clients[0]] + ",S"
	}

	var shown bool
	var at = -1.0
	for i, e := range tr.Events {
		if i < from || i > to {
			continue
		}
		actor, bg, _ := sim.SplitActor(e.Actor)
		line := ""
		switch e.Kind {
		case sim.KindCommand:
			prefix := ""
			if bg {
				prefix = "⟳ "
			}
			arrow := "-->>"
			if strings.HasPrefix(e.Reply, "(error)") {
				arrow = "--x"
			}
			line = fmt.Sprintf("    %s->>%s: %s\n    %s%s%s: %s\n",
				ids[actor], ids[e.Server], mmd(prefix+e.Command), ids[e.Server], arrow, ids[actor], mmd(e.Reply))
		case sim.KindBelief:
			if important(e) {
				line = fmt.Sprintf("    Note over %s: %s\n", ids[actor], mmd(e.Short.In(lang)))
			}
		case sim.KindResource:
			arrow := "->>"
			if strings.Contains(e.Short.EN, "✗") {
				arrow = "-x"
			}
			line = fmt.Sprintf("    %s%sS: %s\n", ids[actor], arrow, mmd(e.Short.In(lang)))
		case sim.KindExpire, sim.KindReplicate:
			line = fmt.Sprintf("    Note over %s: %s\n", ids[e.Server], mmd(e.Short.In(lang)))
		case sim.KindFault:
			over := ids[actor]
			if actor == "" {
				over = ids[e.Server]
			}
			line = fmt.Sprintf("    Note over %s: %s\n", over, mmd(e.Short.In(lang)))
		case sim.KindSchedule:
			line = fmt.Sprintf("    Note over %s: %s\n", ids[actor], mmd(e.Short.In(lang)))
		case sim.KindViolation:
			line = fmt.Sprintf("    rect rgb(255, 210, 210)\n    Note over %s: ✗ %s%s\n    end\n", span, mmd(violationHead(e.Invariant, e.Invariant, lang)), mmd(e.Text.In(lang)))
		}
		if line == "" {
			continue
		}
		if t := e.T.Seconds(); t != at || !shown {
			p.printf("    Note over %s: t = %s\n", span, sim.Secs(e.T))
			at, shown = t, true
		}
		p.printf("%s", line)
	}
	return p.err
}

// important are the belief changes a diagram shows: taking and losing the
// lock, the work that lets time pass, a release that found someone else's
// lock, giving up.
func important(e sim.Event) bool {
	s := e.Short.EN
	return strings.HasPrefix(s, "holds") || strings.HasPrefix(s, "works") ||
		s == "lost!" || s == "not its own" || s == "gives up" || s == "release failed"
}

// mmd makes text safe in a sequenceDiagram message or note: ";" would end
// the statement and "#" starts an entity, so both become entity codes.
func mmd(s string) string {
	return strings.NewReplacer("#", "#35;", ";", "#59;", "\n", " ").Replace(s)
}
