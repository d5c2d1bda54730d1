// Package report renders traces and matrix results as text for the command
// line: the play timeline, the check table, JSON. It reads traces only.
package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"lockstep/scenarios/sim"
)

// secs formats virtual time as seconds with millisecond precision.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Timeline writes a trace as a readable text timeline: time, step, actor,
// command → reply, narration, violations, then the verdicts.
func Timeline(w io.Writer, tr *sim.Trace, lang string) error {
	p := &printer{w: w}
	p.printf("%s × %s — %s\n", tr.Scenario, tr.Impl, tr.Title.In(lang))
	p.printf("%s %s, TTL %s · %s %s · %s %s\n\n",
		pick(lang, "lock", "锁"), tr.Key, sim.Secs(tr.TTL),
		pick(lang, "servers", "服务器"), strings.Join(tr.Servers, " "),
		pick(lang, "clients", "客户端"), strings.Join(tr.Clients, " "))
	if len(tr.Addrs) > 0 {
		var names []string
		for i, a := range tr.Addrs {
			if i < len(tr.Servers) {
				a = tr.Servers[i] + "=" + a
			}
			names = append(names, a)
		}
		p.printf("%s %s\n", pick(lang, "recorded on real Redis:", "在真实 Redis 上录制："), strings.Join(names, " "))
		p.printf(pick(lang, "kept to the scenario's clock within %s of real time\n", "与场景时钟的偏差在真实时间 %s 以内\n"), tr.Drift.Round(100*time.Microsecond))
	}
	const indent = "                              "
	for _, e := range tr.Events {
		head := fmt.Sprintf("%8s  %3d  %-11s", secs(e.T), e.Step, e.Actor)
		switch e.Kind {
		case sim.KindCommand:
			p.printf("%s %-8s %s → %s\n", head, e.Server, e.Command, e.Reply)
			p.printf("%s %s\n", indent, e.Text.In(lang))
		case sim.KindViolation:
			p.printf("%s ✗ %s: %s\n", head, strings.ToUpper(e.Invariant), e.Text.In(lang))
		case sim.KindNarration:
			p.printf("%s » %s\n", head, e.Text.In(lang))
		default:
			p.printf("%s %s\n", head, e.Text.In(lang))
		}
	}
	p.printf("\n%s\n", pick(lang, "invariants:", "不变量："))
	for _, v := range tr.Verdicts {
		if v.Broken {
			p.printf("  %-10s ✗ %s %d, t=%ss: %s\n", v.Invariant, pick(lang, "step", "步骤"), v.Step, secs(v.T), v.Reason.In(lang))
		} else {
			p.printf("  %-10s ✓\n", v.Invariant)
		}
	}
	return p.err
}

func pick(lang, en, zh string) string {
	if lang == "zh" {
		return zh
	}
	return en
}

// printer remembers the first write error so callers check once.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
