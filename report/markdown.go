package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// Handout writes a trace as a Markdown handout: what the scenario is, the
// implementation, the outcome, every step as a table row, the invariants.
func Handout(w io.Writer, tr *trace.Trace, lang string) error {
	p := &printer{w: w}
	p.printf("# %s × %s\n\n", mdText(tr.Scenario), mdText(tr.Impl))
	p.printf("**%s**\n\n", mdText(tr.Title.In(lang)))
	if s, err := scenarios.Lookup(tr.Scenario); err == nil {
		p.printf("%s\n\n", mdText(s.Summary.In(lang)))
	}
	if in, err := lockimpl.Lookup(tr.Impl); err == nil {
		p.printf("- **%s** `%s`%s%s\n", text.New("Implementation", "锁实现").In(lang), in.Name, text.New(": ", "：").In(lang), mdText(in.Summary.In(lang)))
		p.printf("- **%s** %s\n", text.New("Fixes:", "解决：").In(lang), mdText(in.Fixes.In(lang)))
		p.printf("- **%s** %s\n", text.New("Misses:", "遗留：").In(lang), mdText(in.Misses.In(lang)))
	}
	// The key, the servers and the clients are named by the lesson or the
	// trace file: escaped like the prose.
	comma, semi, list := text.New(", ", "，").In(lang), text.New("; ", "；").In(lang), text.New(", ", "、").In(lang)
	p.printf("- **%s** `%s`%sTTL %s%s%s %s%s%s %s\n", text.New("Lock:", "锁：").In(lang), mdCode(tr.Key), comma, secsIn(tr.TTL, lang),
		semi, text.New("servers", "服务器").In(lang), mdText(strings.Join(tr.Servers, list)), semi, text.New("clients", "客户端").In(lang), mdText(strings.Join(tr.Clients, list)))
	if len(tr.Addrs) > 0 {
		p.printf("- **%s** %s\n", text.New("Recorded on real Redis:", "在真实 Redis 上录制：").In(lang), mdText(strings.Join(tr.Addrs, ", ")))
	}
	p.printf("\n## %s\n\n", text.New("Outcome", "结果").In(lang))
	p.printf("| %s | %s | %s |\n|---|---|---|\n", text.New("invariant", "不变量").In(lang), text.New("verdict", "结论").In(lang), text.New("rule", "规则").In(lang))
	for _, v := range tr.Verdicts {
		verdict := "✓ " + text.New("holds", "成立").In(lang)
		if v.Broken {
			verdict = "✗ " + text.New(fmt.Sprintf("step %d (t=%s): %s", v.Step, narrate.Secs(v.T), v.Reason.EN),
				fmt.Sprintf("第 %d 步（第 %s）：%s", v.Step, secsIn(v.T, "zh"), v.Reason.ZH)).In(lang)
		}
		rule := ""
		if i := slices.IndexFunc(invariant.Infos(), func(inv invariant.Info) bool { return inv.ID == v.Invariant }); i >= 0 {
			rule = invariant.Infos()[i].Rule.In(lang)
		}
		name := "`" + mdCode(v.Invariant) + "`"
		if lang == "zh" {
			name = invariant.NameOf(v.Invariant).ZH + "（" + name + "）" // 互斥（mutex）, as everywhere in Chinese
		}
		p.printf("| %s | %s | %s |\n", name, mdCell(mdText(verdict)), mdCell(mdText(rule)))
	}
	p.printf("\n## %s\n\n", text.New("Steps", "步骤").In(lang))
	p.printf("| # | %s | %s | %s | %s |\n|---:|---:|---|---|---|\n", text.New("t", "时刻").In(lang),
		text.New("actor", "角色").In(lang), text.New("command → reply", "命令 → 回复").In(lang), text.New("what happens", "发生了什么").In(lang))
	for _, e := range tr.Events {
		cmd := ""
		if e.Kind == trace.KindCommand {
			cmd = "`" + mdCode(e.Server+"> "+e.Command+" → "+e.ReplyIn(lang)) + "`"
		}
		what := e.Text.In(lang)
		switch e.Kind {
		case trace.KindNarration:
			what = "*" + mdText(what) + "*"
		case trace.KindViolation:
			what = "**✗ " + violationHead(e.Invariant, e.Invariant, lang) + mdText(what) + "**"
		default:
			what = mdText(what)
		}
		actor := e.Actor
		if actor == "" {
			actor = e.Server
		}
		p.printf("| %d | %s | %s | %s | %s |\n", e.Step, secsIn(e.T, lang), mdCell(mdText(actor)), mdCell(cmd), mdCell(what))
	}
	return p.err
}

// mdText escapes what Markdown would read as emphasis, a link, a code span
// or HTML in prose, and keeps it on one line (oneLine), so that nothing in
// it starts a heading, a quote or a list item. A backslash is escaped
// first, so that it cannot undo the escapes after it.
func mdText(s string) string {
	return mdEscaper.Replace(oneLine(s))
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "`", "'")

// mdCode makes text safe between the backticks of a code span, where
// Markdown reads no markup: on one line, its own backticks quotes.
func mdCode(s string) string {
	return strings.ReplaceAll(oneLine(s), "`", "'")
}

// mdCell keeps a table cell on one line and its pipes literal.
func mdCell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
