// Package report renders traces and matrix results as text for the command
// line: the play timeline, the check table, JSON. It reads traces only.
package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/text"
)

// secs formats virtual time as seconds with millisecond precision.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// secsIn writes a duration as the narration does in lang: "30s", "30 秒".
func secsIn(d time.Duration, lang string) string {
	return text.New(narrate.Secs(d), strings.TrimSuffix(narrate.Secs(d), "s")+" 秒").In(lang)
}

// Timeline writes a trace as a readable text timeline: time, step, actor,
// command → reply, narration, violations, then the verdicts.
func Timeline(w io.Writer, tr *trace.Trace, lang string) error {
	p := &printer{w: w}
	p.printf("%s × %s — %s\n", tr.Scenario, tr.Impl, tr.Title.In(lang))
	p.printf("%s %s%sTTL %s · %s %s · %s %s\n\n",
		text.New("lock", "锁").In(lang), tr.Key, text.New(", ", "，").In(lang), secsIn(tr.TTL, lang),
		text.New("servers", "服务器").In(lang), strings.Join(tr.Servers, " "),
		text.New("clients", "客户端").In(lang), strings.Join(tr.Clients, " "))
	if len(tr.Addrs) > 0 {
		var names []string
		for i, a := range tr.Addrs {
			if i < len(tr.Servers) {
				a = tr.Servers[i] + "=" + a
			}
			names = append(names, a)
		}
		p.printf("%s %s\n", text.New("recorded on real Redis:", "在真实 Redis 上录制：").In(lang), strings.Join(names, " "))
		p.printf(text.New("kept to the scenario's clock within %s of real time\n", "与场景时钟的偏差在真实时间 %s 以内\n").In(lang), tr.Drift.Round(100*time.Microsecond))
	}
	const indent = "                              "
	for _, e := range tr.Events {
		head := fmt.Sprintf("%8s  %3d  %-11s", secs(e.T), e.Step, e.Actor)
		switch e.Kind {
		case trace.KindCommand:
			p.printf("%s %-8s %s → %s\n", head, e.Server, e.Command, e.ReplyIn(lang))
			p.printf("%s %s\n", indent, e.Text.In(lang))
		case trace.KindViolation:
			p.printf("%s ✗ %s%s\n", head, violationHead(strings.ToUpper(e.Invariant), e.Invariant, lang), e.Text.In(lang))
		case trace.KindNarration:
			p.printf("%s » %s\n", head, e.Text.In(lang))
		default:
			p.printf("%s %s\n", head, e.Text.In(lang))
		}
	}
	p.printf("\n%s\n", text.New("invariants:", "不变量：").In(lang))
	for _, v := range tr.Verdicts {
		name := v.Invariant
		if lang == "zh" {
			// 互斥（mutex）: the Chinese name first, the id the flags and
			// the JSON use after it, padded by display width.
			name = invariantZH(v.Invariant)
			name += strings.Repeat(" ", max(0, 18-displayWidth(name)))
		} else {
			name = fmt.Sprintf("%-10s", name)
		}
		if v.Broken {
			p.printf("  %s ✗ %s\n", name, text.New(
				fmt.Sprintf("step %d, t=%ss: %s", v.Step, secs(v.T), v.Reason.EN),
				fmt.Sprintf("第 %d 步，第 %s：%s", v.Step, secsIn(v.T, "zh"), v.Reason.ZH)).In(lang))
		} else {
			p.printf("  %s ✓\n", name)
		}
	}
	return p.err
}

// displayWidth is how many terminal columns s takes: two for a wide (CJK)
// character, one for the rest.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x1100 && (r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 ||
			r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f || r >= 0xff00 && r <= 0xff60 || r >= 0xffe0 && r <= 0xffe6) {
			n++
		}
	}
	return n
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

// violationHead starts the line of a broken invariant: "MUTEX: ", and in
// Chinese with the invariant's Chinese name and a Chinese colon,
// "互斥（mutex）：", the Chinese name first and the id after it, as the
// verdicts name it (one form everywhere, issue #29).
func violationHead(label, id, lang string) string {
	return text.New(label+": ", invariantZH(id)+"：").In(lang)
}

// invariantZH names an invariant in Chinese: 互斥（mutex）.
func invariantZH(id string) string {
	return invariant.NameOf(id).ZH + "（" + id + "）"
}
