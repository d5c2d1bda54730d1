package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/text"
)

// This file draws the sandbox: title, timeline, the panel (servers, clients,
// invariants), the moves, a status line and the keys. The moves get the
// lines they need; the timeline gets the rest, but never fewer than
// minTimeline.

// minTimeline is the fewest lines the sandbox's timeline keeps: its header
// and two events.
const minTimeline = 3

// layout shares the lines of the sandbox at w×h in lang: it returns the
// title's lines, the status's (as many as leave the list three) and the
// most the list of moves may take: what is left after the title, the
// smallest timeline, the panel between its two rules, the "Your move" line,
// the status and the keys. A cut list needs at least three: its two "more"
// lines and the cursor between them.
func (v sandboxView) layout(lang string, w, h int) (head, status []string, list int) {
	if v.st == nil || v.tr == nil || len(v.tr.Events) == 0 {
		return nil, nil, 3
	}
	head = v.headLines(lang, w)
	// The panel has as many lines in any language and style.
	band := lipgloss.Height(v.player().band(Styles{}, "en", w, v.tr, len(v.tr.Events)-1))
	fixed := len(head) + minTimeline + 2 + band + 1 + 1
	status = v.statusLines(lang, w, max(h-fixed-3, 1))
	return head, status, max(h-fixed-len(status), 3)
}

// listRows is how many lines the list of moves may take at w×h in lang.
func (v sandboxView) listRows(lang string, w, h int) int {
	_, _, n := v.layout(lang, w, h)
	return n
}

// headLines is the title: the sandbox, its implementation, the time, the
// moves made and the fault set. Where one line would cut it, the faults go
// on lines of their own, each name whole.
func (v sandboxView) headLines(lang string, w int) []string {
	base := fmt.Sprintf("lockstep ─ %s ─ %s ─ t=%s ─ %s %d",
		text.New("sandbox", "沙盒").In(lang), v.impl.Name, secs(v.st.Now()), text.New("move", "步数").In(lang), len(v.schedule()))
	faults := text.New("faults", "故障").In(lang) + ": "
	if one := base + " ─ " + faults + faultNames(v.faults); ansi.StringWidth(one) <= w {
		return []string{one}
	}
	var items []string
	for i, f := range faultSets[v.faults] {
		item := string(f)
		if i == 0 {
			item = faults + item
		}
		if i < len(faultSets[v.faults])-1 {
			item += ","
		}
		items = append(items, item)
	}
	return append([]string{fit(base, w)}, wrapItems(items, "", w)...)
}

// statusLines are the status — the hint, what the last change did, the
// search under way — wrapped at its spaces to w columns, at most n lines
// (the last cut with … where it does not fit).
func (v sandboxView) statusLines(lang string, w, n int) []string {
	status := v.hint.In(lang)
	if status == "" {
		status = v.note.In(lang)
	}
	if v.hinting {
		status = text.New("searching for a counterexample from here…", "正在从这里搜索反例…").In(lang)
	}
	lines := wrapWords(status, w)
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1]+" …", w, "…")
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return lines
}

// visible reports whether move i is on screen with rows lines for the list:
// within the window around the cursor and not under one of its "more" lines.
func (v sandboxView) visible(i, rows int) bool {
	from, to := window(len(v.moves), v.cursor, rows)
	return i >= from && i < to && !(i == from && from > 0) && !(i == to-1 && to < len(v.moves))
}

func (v sandboxView) view(st Styles, lang string, w, h int, hm help.Model, k KeyMap) string {
	if v.err != nil {
		return st.Bad.Render("lockstep: "+v.err.Error()) + "\n\n" + helpLine(hm, sandboxHelp{k}.ShortHelp(), w)
	}
	head, status, list := v.layout(lang, w, h)
	for i := range head {
		head[i] = st.Title.Render(fit(head[i], w))
	}
	for i := range status {
		status[i] = st.Warn.Render(fit(status[i], w))
	}
	bottom := []string{
		st.Rule.Render(strings.Repeat("─", w)),
		v.player().band(st, lang, w, v.tr, len(v.tr.Events)-1),
		st.Rule.Render(strings.Repeat("─", w)),
	}
	bottom = append(bottom, v.moveLines(st, lang, w, list)...)
	bottom = append(bottom, status...)
	bottom = append(bottom, helpLine(hm, sandboxHelp{k}.ShortHelp(), w))
	rows := h - len(head) - len(strings.Split(strings.Join(bottom, "\n"), "\n"))
	top := append(head, v.player().timeline(st, lang, w, max(rows, 2))...)
	return strings.Join(append(top, bottom...), "\n")
}

// moveLines are the moves offered, each with its key, as many as rows lines
// hold around the cursor; or why there are none.
func (v sandboxView) moveLines(st Styles, lang string, w, rows int) []string {
	if broken := v.st.Broken(); len(broken) > 0 {
		var zh []string
		for _, b := range broken {
			zh = append(zh, invariant.NameOf(b).ZH)
		}
		return []string{st.Bad.Render(fit(text.New(
			fmt.Sprintf("✗ %s broke after %d moves: a counterexample. u undoes, r starts again.", strings.Join(broken, ", "), len(v.schedule())),
			fmt.Sprintf("✗ %s在第 %d 步被破坏：找到反例。u 撤销，r 重来。", strings.Join(zh, "、"), len(v.schedule()))).In(lang), w))}
	}
	if len(v.moves) == 0 {
		return []string{st.Dim.Render(fit(text.New(
			"no move left: this schedule keeps every invariant. u undoes, r starts again.",
			"没有可走的步了：这条调度下所有不变量都成立。u 撤销，r 重来。").In(lang), w))}
	}
	lines := []string{fitStyled(st.Header.Render(text.New("Your move:", "下一步：").In(lang))+" "+
		st.Dim.Render(text.New("press its key, or ↑/↓ and enter", "按它的键，或用 ↑/↓ 选中后按回车").In(lang)), w)}
	from, to := window(len(v.moves), v.cursor, rows)
	for i := from; i < to; i++ {
		switch {
		case i == from && from > 0:
			lines = append(lines, st.Dim.Render(fit(text.Newf("  ↑ %d more", "  ↑ 还有 %d 个", from+1).In(lang), w)))
			continue
		case i == to-1 && to < len(v.moves):
			lines = append(lines, st.Dim.Render(fit(text.Newf("  ↓ %d more", "  ↓ 还有 %d 个", len(v.moves)-i).In(lang), w)))
			continue
		}
		m := v.moves[i]
		mark := "  "
		if i == v.cursor {
			mark = "▶ "
		}
		line := fmt.Sprintf("%s%s  %s", mark, moveKey(i), m.Label.In(lang))
		if m.ID == v.hintMove {
			line += "  ← " + text.New("hint", "提示").In(lang)
		}
		line = fit(line, w)
		switch {
		case i == v.cursor:
			line = st.Selected.Render(line)
		case m.ID == v.hintMove:
			line = st.Warn.Render(line)
		}
		lines = append(lines, line)
	}
	return lines
}
