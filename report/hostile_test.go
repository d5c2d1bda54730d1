package report

import (
	"bytes"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// Lesson files are user input (issue #26, item 11): an instructor names the
// clients, the key and the titles. These tests give the exports the names
// Mermaid and Markdown read as syntax.

// hostileLesson is a lesson whose clients are named like a Mermaid keyword
// (end, loop), like the ids the diagram gives the stock and the first
// server (S, R1), like a message's error arrow (x), or by a number (10); its
// key and title carry Mermaid's and Markdown's punctuation.
const hostileLesson = `lesson hostile-names
naive set-nx-ex
title
    en <script>alert(1)</script> | ` + "`x`" + ` # a title
    zh <b>标题</b> | ` + "`x`" + ` # 标题
summary
    en Clients named like Mermaid's keywords and ids
    zh 客户端的名字像 Mermaid 的关键字和标识
setup key=lock;#1|` + "`k" + `<b>%%x

client end work=1s
client S start=0.1s retry=1s work=1s
client R1 start=0.2s retry=1s work=1s
client x start=0.3s retry=1s work=1s
client 10 start=0.4s retry=1s work=1s
client loop start=0.5s retry=1s work=1s
say
    en Six clients take turns.
    zh 六个客户端轮流来。
run end

expect
    set-nx-ex -

story en
Hostile names.
`

// hostileLessonTrace is hostileLesson played against set-nx-ex.
func hostileLessonTrace(t *testing.T) *trace.Trace {
	t.Helper()
	s, err := scenarios.ParseLesson("hostile.lesson", []byte(hostileLesson))
	if err != nil {
		t.Fatal(err)
	}
	in, err := lockimpl.Lookup("set-nx-ex")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// hostileTrace is a trace file's worth of names no lesson allows but a
// trace file may hold: Mermaid's arrows, statement ends, comments,
// entities, directives and line breaks in the clients', servers' and key's
// names, Markdown's table pipes, code spans, HTML and block markers. (No
// name has a "." or "/": those name a client's goroutine, A.watchdog, and
// a trace file's validation refuses an actor that is no client's.)
func hostileTrace() *trace.Trace {
	text := func(en, zh string) text.Text { return text.Text{EN: en, ZH: zh} }
	clients := []string{"a-->>b", "x;y", "c:d", "#1", `"q"`, "<img src=x onerror=alert(1)>", "e\rf", "g\nh",
		"i\u2028j", `%%{init: {"theme":"dark"}}%%`, "end", "S", "R1", "a|b", "`tick`", "# head", "> quote",
		"- item", "k\n# heading", "m\\", "[l](javascript:alert(1))", "s,t", "u@v", "w<br>z"}
	servers := []string{"redis-1", "end;", "S", "R2", "n\n> o", "p|q"}
	tr := &trace.Trace{Schema: trace.TraceSchema, Scenario: "odd\nparticipant end", Impl: "set-nx-ex",
		Title: text("a | title\n# x", "一个 | 标题\n# x"),
		Key:   "lock|`k`\n# <b>x</b>;%%{init}%%", TTL: 30 * time.Second,
		Servers: servers, Clients: clients}
	add := func(e trace.Event) {
		e.Step = len(tr.Events)
		e.T = time.Duration(e.Step) * 100 * time.Millisecond
		tr.Events = append(tr.Events, e)
	}
	add(trace.Event{Kind: trace.KindNarration, Text: text("names <b>anyone</b> may choose", "任何人都能选的名字")})
	for i, c := range clients {
		srv := servers[i%len(servers)]
		add(trace.Event{Kind: trace.KindCommand, Actor: c, Server: srv, Command: "SET " + tr.Key + " " + c + " NX", Reply: "OK",
			Text: text(c+" writes", c+" 写入")})
		add(trace.Event{Kind: trace.KindBelief, Actor: c, Short: text("holds "+c, "持有 "+c), Text: text(c+" holds", c+" 持有")})
		add(trace.Event{Kind: trace.KindResource, Actor: c, Short: text("read "+c, "读 "+c), Text: text(c+" reads", c+" 读")})
		add(trace.Event{Kind: trace.KindCommand, Actor: c + ".watchdog", Server: srv, Command: "PEXPIRE " + tr.Key, Reply: "(error) " + c,
			Text: text(c+" renews", c+" 续期")})
	}
	add(trace.Event{Kind: trace.KindExpire, Server: servers[1], Short: text("expires "+servers[1], "过期 "+servers[1]), Text: text("expires", "过期")})
	add(trace.Event{Kind: trace.KindViolation, Invariant: invariant.Mutex, Text: text(clients[0]+" and "+clients[1]+" <i>both</i>", "两个持有者")})
	tr.Verdicts = []trace.Verdict{
		{Invariant: invariant.Mutex, Broken: true, Step: len(tr.Events) - 1, T: tr.Events[len(tr.Events)-1].T,
			Reason: text("<img src=x onerror=alert(1)> | "+clients[0], "<img src=x> | "+clients[0])},
		{Invariant: invariant.Liveness},
	}
	return tr
}

// A client named like a Mermaid keyword (end, loop) or like the stock's or
// a server's id (S, R1) gets an id of its own; its name is the alias.
// Before: "participant end as client end" then "end->>R1: …" closed a
// block that was never opened, and "participant S as client S" beside
// "participant S as stock" drew the client's commands from the stock.
func TestMermaidHostileLessonNames(t *testing.T) {
	tr := hostileLessonTrace(t)
	for _, lang := range []string{"en", "zh"} {
		mm := render(t, func(w *bytes.Buffer) error { return Mermaid(w, tr, lang) })
		checkMermaid(t, "hostile lesson/"+lang, mm, tr)
		checkMermaidArrows(t, "hostile lesson/"+lang, mm, tr, lang)
	}
}

// Names with Mermaid's punctuation, and line breaks, are escaped in the
// aliases and messages; the arrows go where the trace says.
func TestMermaidHostileTraceNames(t *testing.T) {
	tr := hostileTrace()
	for _, lang := range []string{"en", "zh"} {
		mm := render(t, func(w *bytes.Buffer) error { return Mermaid(w, tr, lang) })
		checkMermaid(t, "hostile trace/"+lang, mm, tr)
		checkMermaidArrows(t, "hostile trace/"+lang, mm, tr, lang)
	}
	// A slide names the scenario in a comment: a line break in the name
	// does not end the comment.
	mm := render(t, func(w *bytes.Buffer) error { return MermaidSteps(w, tr, "en", 1, 8) })
	for l := range strings.Lines(mm) {
		if strings.HasPrefix(strings.TrimSpace(l), "participant end") {
			t.Errorf("the scenario's name broke out of the comment: %q", l)
		}
	}
}

// mermaidKeyword matches the words Mermaid's sequenceDiagram lexer reads as
// statements or parts of one (case-insensitive, as the lexer is).
var mermaidKeyword = regexp.MustCompile(`(?i)^(participant|actor|create|destroy|box|as|loop|rect|opt|alt|else|par|par_over|and|critical|option|break|end|left|right|of|links|link|properties|details|over|note|activate|deactivate|title|acctitle|accdescr|sequencediagram|autonumber|off)$`)

// checkMermaidArrows checks a diagram's participants and arrows against its
// trace: one participant per client, server and the stock, each with an id
// of its own that is no Mermaid keyword and an alias that holds none of
// Mermaid's syntax; every command drawn from its client to its server and
// every use of the stock from its client to the stock, in the trace's order.
func checkMermaidArrows(t *testing.T, name, mm string, tr *trace.Trace, lang string) {
	t.Helper()
	participant := regexp.MustCompile(`^    participant (\S+) as (.*)$`)
	byAlias := map[string]string{}
	ids := map[string]bool{}
	for l := range strings.Lines(mm) {
		l = strings.TrimSuffix(l, "\n")
		if strings.ContainsFunc(l, func(r rune) bool { return r < ' ' || r == '\u2028' || r == '\u2029' || r == '\u0085' }) {
			t.Fatalf("%s: a control character or line separator in %q", name, l)
		}
		if strings.HasPrefix(strings.TrimSpace(l), "%%") {
			continue
		}
		if strings.Contains(l, "%") {
			t.Fatalf("%s: a raw %% (Mermaid reads %%%%{…}%%%% anywhere as a directive) in %q", name, l)
		}
		m := participant.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		id, alias := m[1], m[2]
		if ids[id] {
			t.Errorf("%s: two participants with the id %q", name, id)
		}
		ids[id] = true
		if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`).MatchString(id) || mermaidKeyword.MatchString(id) {
			t.Errorf("%s: participant id %q is not a plain word, or a keyword", name, id)
		}
		if strings.ContainsAny(strings.NewReplacer("#35;", "", "#59;", "", "#60;", "", "#62;", "", "#37;", "").Replace(alias), "#;<>%") {
			t.Errorf("%s: alias %q holds Mermaid syntax", name, alias)
		}
		byAlias[alias] = id
	}
	client := "client "
	stock := "stock"
	if lang == "zh" {
		client, stock = "客户端 ", "库存"
	}
	// The aliases, as the diagram escapes them: the same escape for every
	// name, so the map finds each participant by its name.
	idOf := map[string]string{}
	find := func(alias, what string) {
		for a, id := range byAlias {
			if unescapeMermaid(a) == alias {
				idOf[what] = id
				return
			}
		}
		t.Errorf("%s: no participant for %q (aliases %q)", name, what, slices.Sorted(maps.Keys(byAlias)))
	}
	for _, c := range tr.Clients {
		find(client+flatten(c), "client "+c)
	}
	for _, s := range tr.Servers {
		find(flatten(s), "server "+s)
	}
	find(stock, "stock")
	if len(byAlias) != len(tr.Clients)+len(tr.Servers)+1 {
		t.Errorf("%s: %d participants for %d clients, %d servers and the stock", name, len(byAlias), len(tr.Clients), len(tr.Servers))
	}

	var want, got []string
	for _, e := range tr.Events {
		c, _, _ := trace.SplitActor(e.Actor)
		switch e.Kind {
		case trace.KindCommand:
			want = append(want, idOf["client "+c]+"->>"+idOf["server "+e.Server])
		case trace.KindResource:
			want = append(want, idOf["client "+c]+"->>"+idOf["stock"])
		}
	}
	request := regexp.MustCompile(`^    (\w+)(->>|-x)(\w+): `)
	for l := range strings.Lines(mm) {
		if m := request.FindStringSubmatch(l); m != nil {
			got = append(got, m[1]+"->>"+m[3])
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: arrows\n%q\nwant\n%q", name, got, want)
	}
}

// unescapeMermaid reads Mermaid's numeric entity codes (#59; for ";") back.
func unescapeMermaid(s string) string {
	return regexp.MustCompile(`#\d+;`).ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return string(rune(n))
	})
}

// flatten is a name on one line: the exports write a line break, or any
// other control character, as a space.
func flatten(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// A name in the handout neither breaks its table nor starts a line of its
// own nor brings HTML: the actor column, the Lock line (key, servers,
// clients), the title, the heading and a verdict's reason are escaped as
// the other cells are. Before: a client "a|b" added a column to its rows,
// "<script>" went into the page as HTML, a line break in a name or key
// started a heading or a quote.
func TestHandoutHostileNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   *trace.Trace
	}{
		{"lesson", hostileLessonTrace(t)},
		{"trace", hostileTrace()},
	} {
		for _, lang := range []string{"en", "zh"} {
			name := tc.name + "/" + lang
			md := render(t, func(w *bytes.Buffer) error { return Handout(w, tc.tr, lang) })
			checkHandout(t, name, md, tc.tr)
			lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
			// Every line is one the handout writes: a heading, the title, a
			// list item, a table row or a blank (no summary: the scenario
			// is no built-in one).
			for _, l := range lines {
				if l != "" && !regexp.MustCompile(`^(# |## |\*\*|- \*\*|\| |\|---)`).MatchString(l) {
					t.Errorf("%s: a line the handout did not start: %q", name, l)
				}
			}
			// The key is one code span, its backticks quotes.
			lock := "\n- **" + map[string]string{"en": "Lock:", "zh": "锁："}[lang] + "** `" + flatten(strings.ReplaceAll(tc.tr.Key, "`", "'")) + "`" + map[string]string{"en": ", TTL ", "zh": "，TTL "}[lang]
			if n := strings.Count(md, lock); n != 1 {
				t.Errorf("%s: %d lines with %q", name, n, lock)
			}
			// Outside code spans, no raw HTML.
			prose := regexp.MustCompile("`[^`\n]*`").ReplaceAllString(md, "")
			if strings.ContainsAny(prose, "<>") {
				t.Errorf("%s: raw < or > outside code spans:\n%s", name, prose)
			}
			// The outcome rows have their four separators.
			for _, l := range lines {
				if regexp.MustCompile("^\\| (\\p{Han}+（)?`").MatchString(l) {
					if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(l, -1)); n != 4 {
						t.Errorf("%s: outcome row with %d separators: %q", name, n, l)
					}
				}
			}
		}
	}
}
