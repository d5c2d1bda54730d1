package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/text"
)

// Mermaid writes a trace as a Mermaid sequenceDiagram: a participant for each
// client, each Redis server and the stock; the commands and replies as
// messages; time passing, expiry, crashes, pauses and failovers as notes;
// violations on a red band. It renders on GitHub and in the Mermaid live
// editor.
func Mermaid(w io.Writer, tr *trace.Trace, lang string) error {
	return MermaidSteps(w, tr, lang, 0, len(tr.Events)-1)
}

// MermaidSteps is Mermaid of the steps from to to (inclusive, numbered
// from 0) of the timeline only, for a slide that shows one moment: every
// participant, the time of the first step shown, a comment that says which
// steps these are. from and to are clamped to the trace.
func MermaidSteps(w io.Writer, tr *trace.Trace, lang string, from, to int) error {
	p := &printer{w: w}
	clientID, serverID := participantIDs(tr)
	p.printf("sequenceDiagram\n")
	from, to = max(from, 0), min(to, len(tr.Events)-1)
	if from > 0 || to < len(tr.Events)-1 {
		p.printf("    %%%% steps %d to %d of %s × %s (0 to %d)\n", from, to, mmd(tr.Scenario), mmd(tr.Impl), len(tr.Events)-1)
	}
	for _, c := range tr.Clients {
		p.printf("    participant %s as %s %s\n", clientID[c], text.New("client", "客户端").In(lang), mmdName(c))
	}
	for _, s := range tr.Servers {
		p.printf("    participant %s as %s\n", serverID[s], mmdName(s))
	}
	p.printf("    participant S as %s\n", text.New("stock", "库存").In(lang))
	// A note across the diagram spans the first client to the stock (a
	// trace without clients only the stock).
	span := "S"
	if len(tr.Clients) > 0 {
		span = clientID[tr.Clients[0]] + ",S"
	}

	var shown bool
	var at = -1.0
	for i, e := range tr.Events {
		if i < from || i > to {
			continue
		}
		actor, bg, _ := trace.SplitActor(e.Actor)
		line := ""
		switch e.Kind {
		case trace.KindCommand:
			prefix := ""
			if bg {
				prefix = "⟳ "
			}
			arrow := "-->>"
			if strings.HasPrefix(e.Reply, "(error)") {
				arrow = "--x"
			}
			line = fmt.Sprintf("    %s->>%s: %s\n    %s%s%s: %s\n",
				clientID[actor], serverID[e.Server], mmd(prefix+e.Command), serverID[e.Server], arrow, clientID[actor], mmd(e.ReplyIn(lang)))
		case trace.KindBelief:
			if important(e) {
				line = fmt.Sprintf("    Note over %s: %s\n", clientID[actor], mmd(e.Short.In(lang)))
			}
		case trace.KindResource:
			arrow := "->>"
			if strings.Contains(e.Short.EN, "✗") {
				arrow = "-x"
			}
			line = fmt.Sprintf("    %s%sS: %s\n", clientID[actor], arrow, mmd(e.Short.In(lang)))
		case trace.KindExpire, trace.KindReplicate:
			line = fmt.Sprintf("    Note over %s: %s\n", serverID[e.Server], mmd(e.Short.In(lang)))
		case trace.KindFault:
			over := clientID[actor]
			if actor == "" {
				over = serverID[e.Server]
			}
			line = fmt.Sprintf("    Note over %s: %s\n", over, mmd(e.Short.In(lang)))
		case trace.KindSchedule:
			line = fmt.Sprintf("    Note over %s: %s\n", clientID[actor], mmd(e.Short.In(lang)))
		case trace.KindViolation:
			line = fmt.Sprintf("    rect rgb(255, 210, 210)\n    Note over %s: ✗ %s%s\n    end\n", span, mmd(violationHead(e.Invariant, e.Invariant, lang)), mmd(e.Text.In(lang)))
		}
		if line == "" {
			continue
		}
		if t := e.T.Seconds(); t != at || !shown {
			p.printf("    Note over %s: t = %s\n", span, narrate.Secs(e.T))
			at, shown = t, true
		}
		p.printf("%s", line)
	}
	return p.err
}

// important are the belief changes a diagram shows: taking and losing the
// lock, the work that lets time pass, a release that found someone else's
// lock, giving up.
func important(e trace.Event) bool {
	s := e.Short.EN
	return strings.HasPrefix(s, "holds") || strings.HasPrefix(s, "works") ||
		s == "lost!" || s == "not its own" || s == "gives up" || s == "release failed"
}

// participantIDs gives the clients and the servers their ids in the
// diagram; the stock's is S. The servers are R1, R2… by their place. A
// client keeps its own name as its id when that is a plain word (an ASCII
// letter, then letters and digits), no Mermaid keyword, and not of the
// form S, R<n> or C<n>; any other client (end, loop, S, R1, 10, A;B) is
// C1, C2… by its place. So no two participants share an id, no id is
// Mermaid syntax, and the diagram's text stays readable (A->>R1); a
// client's name, whatever it holds, is otherwise only its alias.
func participantIDs(tr *trace.Trace) (clients, servers map[string]string) {
	clients, servers = map[string]string{}, map[string]string{}
	for i, c := range tr.Clients {
		id := c
		if !plainID.MatchString(c) || generatedID.MatchString(c) || slices.Contains(mermaidKeywords, strings.ToLower(c)) {
			id = fmt.Sprintf("C%d", i+1)
		}
		clients[c] = id
	}
	for i, s := range tr.Servers {
		servers[s] = fmt.Sprintf("R%d", i+1)
	}
	return clients, servers
}

var (
	plainID     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	generatedID = regexp.MustCompile(`(?i)^(S|R\d+|C\d+)$`)
)

// mermaidKeywords are the words the lexer of Mermaid's sequenceDiagram
// (sequenceDiagram.jison, case-insensitive) reads as a statement or part of
// one, in lower case: an id spelled like one ("end") ends a block that was
// never opened.
var mermaidKeywords = []string{"accdescr", "acctitle", "activate", "actor", "alt", "and", "as", "autonumber",
	"box", "break", "create", "critical", "deactivate", "destroy", "details", "else", "end", "left", "link",
	"links", "loop", "note", "of", "off", "opt", "option", "over", "par", "par_over", "participant",
	"properties", "rect", "right", "sequencediagram", "title"}

// mmd makes text safe in a sequenceDiagram message or note, with Mermaid's
// entity codes: ";" would end the statement, "#" starts an entity (or a
// comment), and "%" could begin a %%{…}%% directive, which Mermaid reads
// anywhere in a diagram. A line break, or any other control character,
// would end the statement too and becomes a space. "<" and ">" stay: a
// message is drawn as text, and EVAL <release> reads better as it is.
func mmd(s string) string {
	return mmdEscaper.Replace(oneLine(s))
}

// mmdName is mmd for a name in a participant's alias, where Mermaid's
// lexer stops at "<" and ">" as well.
func mmdName(s string) string {
	return mmdNameEscaper.Replace(oneLine(s))
}

var (
	mmdEscaper     = strings.NewReplacer("#", "#35;", ";", "#59;", "%", "#37;")
	mmdNameEscaper = strings.NewReplacer("#", "#35;", ";", "#59;", "%", "#37;", "<", "#60;", ">", "#62;")
)

// oneLine puts text on one line: every control character (a line break,
// a carriage return, a tab) and the Unicode line and paragraph separators
// become a space.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
