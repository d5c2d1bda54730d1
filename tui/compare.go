package tui

// Compare mode: two implementations' traces of one timeline side by side,
// aligned row by row.

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"github.com/lockstep-sim/lockstep/text"
)

// compareView draws two traces of the same timeline side by side, aligned
// row by row; ≠ marks rows where they differ.
func (p playerView) compareView(st Styles, lang string, w, h int, hm help.Model, k KeyMap) string {
	l, r := p.sides()
	at := time.Duration(0)
	if l >= 0 {
		at = p.tr.Events[l].T
	} else if r >= 0 {
		at = p.otr.Events[r].T
	}
	// Steps as the player and play number them, each side its own: the
	// rows before the first divergence are the same steps on both sides,
	// so it is at the same step of both.
	div := text.New("no divergence", "完全一致").In(lang)
	if p.diverge >= 0 {
		d := p.rows[p.diverge]
		div = text.Newf("≠ from step %d", "≠ 始于第 %d 步", max(d.l, d.r)).In(lang)
	}
	head := fmt.Sprintf("%s%s ─ %s vs %s ─ %s ─ t=%s ─ %s%s",
		p.lessonMark(lang), p.scenario.ID, p.impl, p.other, sideSteps(l, r, lang), secs(at), div, p.playMark(lang))

	const gutter, timeW, mid = 2, 7, 3
	sideW := (w - gutter - timeW - mid) / 2
	// The bottom: invariants of each side, the narration of each side, help.
	inv := func(t *trace.Trace, i int) string {
		var parts []string
		for _, v := range t.Verdicts {
			mark := st.Good.Render("✓")
			if v.Broken && i >= 0 && v.Step <= i {
				mark = st.Bad.Render("✗")
			}
			parts = append(parts, v.Invariant+" "+mark)
		}
		return strings.Join(parts, "  ")
	}
	narration := func(t *trace.Trace, i int) string {
		if i < 0 {
			return ""
		}
		return t.Events[i].Text.In(lang)
	}
	bottom := []string{
		st.Rule.Render(strings.Repeat("─", w)),
		fitStyled(st.Header.Render(p.impl)+"  "+inv(p.tr, l), w),
		fitStyled(st.Header.Render(p.other)+"  "+inv(p.otr, r), w),
		st.Rule.Render(strings.Repeat("─", w)),
		fit(p.impl+": "+narration(p.tr, l), w),
		fit(p.other+": "+narration(p.otr, r), w),
	}
	if p.flash != (text.Text{}) {
		bottom[4], bottom[5] = fit(p.flash.In(lang), w), ""
	}
	bottom = append(bottom,
		helpLines(hm, playerHelp{k, p.fixed, p.playing, lang}.ShortHelp(), w, 2))
	rows := h - 2 - lipgloss.Height(strings.Join(bottom, "\n"))
	if p.recording != "" {
		head += text.New(" ─ ⏺ recorded on ", " ─ ⏺ 录制于 ").In(lang) + p.recording
	}
	out := []string{st.Title.Render(fit(head, w)),
		st.Header.Render(fit(strings.Repeat(" ", gutter)+fit(text.New("t", "时间").In(lang), timeW)+fit(p.impl, sideW)+" │ "+p.other, w))}
	first := max(0, min(p.row-rows*2/3, len(p.rows)-rows))
	for i := first; i < min(first+rows, len(p.rows)); i++ {
		if p.noSpoilers && i > p.row {
			break
		}
		row := p.rows[i]
		t := time.Duration(0)
		if row.l >= 0 {
			t = p.tr.Events[row.l].T
		} else {
			t = p.otr.Events[row.r].T
		}
		same := row.same
		mark := "  "
		switch {
		case i == p.row:
			mark = "▶ "
		case i == p.diverge:
			mark = "≠ "
		}
		sep := " │ "
		if !same {
			sep = " ≠ "
		}
		line := mark + fit(fmt.Sprintf("%6.1f", t.Seconds()), timeW) +
			fit(sideText(p.tr, row.l, lang), sideW) + sep + fit(sideText(p.otr, row.r, lang), sideW)
		line = fit(line, w)
		switch {
		case i == p.row:
			line = st.Current.Render(line)
		case !same:
			line = st.Warn.Render(line)
		}
		out = append(out, line)
	}
	for len(out) < rows+2 {
		out = append(out, "")
	}
	return strings.Join(append(out, bottom...), "\n")
}

// sideSteps are the steps the two sides of compare mode are at: "step 23"
// where they are at the same one, else "steps 25 vs 24" (– before a
// side's first step).
func sideSteps(l, r int, lang string) string {
	if l == r {
		return text.Newf("step %d", "第 %d 步", l).In(lang)
	}
	n := func(i int) string {
		if i < 0 {
			return "–"
		}
		return fmt.Sprint(i)
	}
	return text.Newf("steps %s vs %s", "步骤 %s vs %s", n(l), n(r)).In(lang)
}

// sideText is one trace's event in a few words for compare mode.
func sideText(t *trace.Trace, i int, lang string) string {
	if i < 0 {
		return ""
	}
	e := t.Events[i]
	switch e.Kind {
	case trace.KindNarration:
		return "» " + e.Text.In(lang)
	case trace.KindViolation:
		return "✗ " + e.Text.In(lang)
	}
	who := e.Actor
	if who == "" {
		who = e.Server
	}
	if e.Kind == trace.KindCommand {
		return who + " " + e.Server + " " + e.Short.In(lang)
	}
	return who + " " + e.Short.In(lang)
}
