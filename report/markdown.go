package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"lockstep/lockimpl"
	"lockstep/scenarios"
	"lockstep/scenarios/sim"
)

// Handout writes a trace as a Markdown handout: what the scenario is, the
// implementation, the outcome, every step as a table row, the invariants.
func Handout(w io.Writer, tr *sim.Trace, lang string) error {
	p := &printer{w: w}
	p.printf("# %s × %s\n\n", tr.Scenario, tr.Impl)
	p.printf("**%s**\n\n", mdText(tr.Title.In(lang)))
	if s, err := scenarios.Lookup(tr.Scenario); err == nil {
		p.printf("%s\n\n", mdText(s.Summary.In(lang)))
	}
	if in, err := lockimpl.Lookup(tr.Impl); err == nil {
		p.printf("- **%s** `%s`: %s\n", pick(lang, "Implementation", "锁实现"), in.Name, mdText(pickLang(lang, in.Summary, in.SummaryZH)))
		p.printf("- **%s** %s\n", pick(lang, "Fixes:", "解决："), mdText(pickLang(lang, in.Fixes, in.FixesZH)))
		p.printf("- **%s** %s\n", pick(lang, "Misses:", "遗留："), mdText(pickLang(lang, in.Misses, in.MissesZH)))
	}
	p.printf("- **%s** `%s`, TTL %s; %s %s; %s %s\n", pick(lang, "Lock:", "锁："), tr.Key, sim.Secs(tr.TTL),
		pick(lang, "servers", "服务器"), strings.Join(tr.Servers, ", "), pick(lang, "clients", "客户端"), strings.Join(tr.Clients, ", "))
	if len(tr.Addrs) > 0 {
		p.printf("- **%s** %s\n", pick(lang, "Recorded on real Redis:", "在真实 Redis 上录制："), strings.Join(tr.Addrs, ", "))
	}
	p.printf("\n## %s\n\n", pick(lang, "Outcome", "结果"))
	p.printf("| %s | %s | %s |\n|---|---|---|\n", pick(lang, "invariant", "不变量"), pick(lang, "verdict", "结论"), pick(lang, "rule", "规则"))
	for _, v := range tr.Verdicts {
		verdict := "✓ " + pick(lang, "holds", "成立")
		if v.Broken {
			verdict = fmt.Sprintf("✗ %s %d (t=%s): %s", pick(lang, "step", "步骤"), v.Step, sim.Secs(v.T), v.Reason.In(lang))
		}
		rule := ""
		if i := slices.IndexFunc(sim.Invariants, func(inv sim.Invariant) bool { return inv.ID == v.Invariant }); i >= 0 {
			rule = sim.Invariants[i].Rule.In(lang)
		}
		p.printf("| `%s` | %s | %s |\n", v.Invariant, mdCell(verdict), mdCell(rule))
	}
	p.printf("\n## %s\n\n", pick(lang, "Steps", "步骤"))
	p.printf("| # | t | %s | %s | %s |\n|---:|---:|---|---|---|\n",
		pick(lang, "actor", "角色"), pick(lang, "command → reply", "命令 → 回复"), pick(lang, "what happens", "发生了什么"))
	for _, e := range tr.Events {
		cmd := ""
		if e.Kind == sim.KindCommand {
			cmd = "`" + strings.ReplaceAll(e.Server+"> "+e.Command+" → "+e.Reply, "`", "'") + "`"
		}
		what := e.Text.In(lang)
		switch e.Kind {
		case sim.KindNarration:
			what = "*" + mdText(what) + "*"
		case sim.KindViolation:
			what = "**✗ " + e.Invariant + ": " + mdText(what) + "**"
		default:
			what = mdText(what)
		}
		actor := e.Actor
		if actor == "" {
			actor = e.Server
		}
		p.printf("| %d | %s | %s | %s | %s |\n", e.Step, sim.Secs(e.T), actor, mdCell(cmd), mdCell(what))
	}
	return p.err
}

func pickLang(lang, en, zh string) string {
	if lang == "zh" && zh != "" {
		return zh
	}
	return en
}

// mdText escapes what Markdown would read as emphasis or markup in prose.
func mdText(s string) string {
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "`", "'")
	return r.Replace(s)
}

// mdCell keeps a table cell on one line and its pipes literal.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
