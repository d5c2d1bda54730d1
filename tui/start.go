package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/text"
)

// pane is the focused list of the start screen.
type pane int

const (
	paneScenarios pane = iota
	paneImpls
)

func (p pane) String() string {
	if p == paneImpls {
		return "implementations"
	}
	return "scenarios"
}

// startView lists the failure modes and the implementations; the user picks
// one of each.
type startView struct {
	focus  pane
	sc, im int
	scs    []scenarios.Scenario
	impls  []lockimpl.Info
	// hide: spoiler-free (a course for class): no expected verdict.
	hide bool
	// own maps a lesson to the implementation a course opens it with;
	// without an entry, a lesson's own is its naive one. keep: the
	// implementation stays where the scenario cursor goes (--impl alone).
	own  map[string]string
	keep bool
}

func newStartView(scs []scenarios.Scenario, hide bool) startView {
	v := startView{scs: scs, impls: lockimpl.Runnable(), hide: hide}
	v.pick(v.scs[0].ID, v.scs[0].Naive)
	return v
}

// pick moves the cursors to a scenario and an implementation by name.
func (v *startView) pick(scenario, impl string) {
	for i, s := range v.scs {
		if s.ID == scenario {
			v.sc = i
		}
	}
	for i, in := range v.impls {
		if in.Name == impl {
			v.im = i
		}
	}
}

// ownImpl is the implementation s opens with: the course's, else the
// lesson's naive one (as list and --scenario open it).
func (v startView) ownImpl(s scenarios.Scenario) string {
	if impl, ok := v.own[s.ID]; ok {
		return impl
	}
	return s.Naive
}

func (v startView) selected() (scenarios.Scenario, string) {
	return v.scs[v.sc], v.impls[v.im].Name
}

func (v *startView) key(msg tea.KeyMsg, k KeyMap) {
	n := len(v.scs)
	cur := &v.sc
	if v.focus == paneImpls {
		n, cur = len(v.impls), &v.im
	}
	switch {
	case key.Matches(msg, k.Up):
		*cur = (*cur - 1 + n) % n
	case key.Matches(msg, k.Down):
		*cur = (*cur + 1) % n
	case key.Matches(msg, k.Focus):
		v.focus = 1 - v.focus
		return
	default:
		return
	}
	if cur == &v.sc && !v.keep {
		// A failure mode comes with its own implementation.
		s := v.scs[v.sc]
		v.pick(s.ID, v.ownImpl(s))
	}
}

func (v startView) view(st Styles, lang string, w, h int, hm help.Model, k KeyMap) string {
	title := st.Title.Render("lockstep") + " " +
		st.Dim.Render(text.New("· Redis distributed locks, broken on purpose", "· 故意把 Redis 分布式锁弄坏给你看").In(lang))

	colW := (w - 4) / 2
	// Title, list border and heading, the smallest detail box, help: what
	// is left is for the rows of the longer list.
	rows := max(h-12, 3)
	list := func(p pane, heading string, names []string, cur int) string {
		var b strings.Builder
		b.WriteString(st.Header.Render(heading) + "\n")
		from, to := window(len(names), cur, rows)
		for i := from; i < to; i++ {
			name := names[i]
			line := "  " + name
			switch {
			case i == from && from > 0:
				b.WriteString(st.Dim.Render(text.Newf("  ↑ %d more", "  ↑ 还有 %d 个", from+1).In(lang)) + "\n")
				continue
			case i == to-1 && to < len(names):
				b.WriteString(st.Dim.Render(text.Newf("  ↓ %d more", "  ↓ 还有 %d 个", len(names)-i).In(lang)) + "\n")
				continue
			}
			if i == cur {
				line = "▶ " + name
			}
			// One row per name, whatever the width: a name that wrapped
			// would push the screen's first line off the top.
			line = ansi.Truncate(line, colW-4, "…")
			if i == cur && v.focus == p {
				line = st.Selected.Render(line)
			}
			b.WriteString(line + "\n")
		}
		box := st.Box
		if v.focus == p {
			box = st.FocusBox
		}
		return box.Width(colW - 2).Render(strings.TrimRight(b.String(), "\n"))
	}
	var ids, names []string
	for _, s := range v.scs {
		ids = append(ids, s.ID)
	}
	for _, in := range v.impls {
		names = append(names, in.Name)
	}
	lists := lipgloss.JoinHorizontal(lipgloss.Top,
		list(paneScenarios, text.New("Failure mode", "故障场景").In(lang), ids, v.sc), " ",
		list(paneImpls, text.New("Implementation", "锁实现").In(lang), names, v.im))

	s, in := v.scs[v.sc], v.impls[v.im]
	expected, judged := s.Expected(in.Name)
	verdict := text.New("Expected: all four invariants hold", "预期：四个不变量都成立").In(lang)
	switch {
	case v.hide:
		verdict = text.New("Expected: not shown (spoilers off) — play it and see", "预期：不显示（防剧透）——播放后自己看").In(lang)
	case !judged:
		verdict = text.New("Expected: the lesson does not say for this implementation", "预期：本课没有给出这个实现的预期").In(lang)
	case len(expected) > 0:
		var zh []string
		for _, id := range expected {
			zh = append(zh, invariant.NameOf(id).ZH)
		}
		verdict = text.New("Expected to break: "+strings.Join(expected, ", "), "预期被破坏："+strings.Join(zh, "、")).In(lang)
	}
	inner := w - 8
	// What does not fit is cut where a line may break, with "…": a
	// summary on its second line, the others on their one.
	labelled := func(label, s string) string {
		return fit(label+cutAtWord(s, inner-ansi.StringWidth(label)), inner)
	}
	head := s.ID + " × " + in.Name
	detail := []string{fitStyled(st.Header.Render(head)+"  "+cutAtWord(s.Title.In(lang), inner-ansi.StringWidth(head)-2), inner)}
	for _, l := range wrapText(s.Summary.In(lang), inner, 2) {
		detail = append(detail, st.Narration.Render(fit(l, inner)))
	}
	if _, ok := s.Replaces(); ok {
		detail = append(detail, fit(text.Newf("from %s, in place of the built-in lesson", "来自 %s，替换了同名的内置课程", text.Clean(s.File)).In(lang), inner))
	}
	detail = append(detail, labelled(in.Name+": ", in.Summary.In(lang)))
	optional := []string{
		labelled(text.New("  fixes: ", "  解决：").In(lang), in.Fixes.In(lang)),
		labelled(text.New("  misses: ", "  遗留：").In(lang), in.Misses.In(lang)),
	}
	// Title, blank, lists, box (detail + optional + verdict + border), help.
	full := 1 + 1 + lipgloss.Height(lists) + len(detail) + len(optional) + 3 + 1
	if full <= h {
		detail = append(detail, optional...)
	}
	detail = append(detail, st.Warn.Render(verdict))
	box := st.Box.Width(w - 4).Render(strings.Join(detail, "\n"))
	parts := []string{title, lists, box}
	if full <= h {
		parts = []string{title, "", lists, box}
	}
	body := lipgloss.JoinVertical(lipgloss.Left, parts...)
	gap := h - lipgloss.Height(body) - 1
	return body + strings.Repeat("\n", max(gap, 0)+1) + helpLine(hm, startHelp{k}.ShortHelp(), w)
}

// window is the part [from, to) of a list of n rows that fits in rows lines
// and keeps the cursor away from the edges; the first and last lines of a cut
// list say how many rows are hidden beyond them.
func window(n, cur, rows int) (from, to int) {
	if n <= rows {
		return 0, n
	}
	from = min(max(cur-rows/2, 0), n-rows)
	return from, from + rows
}
