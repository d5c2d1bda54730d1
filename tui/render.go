package tui

// The player's screen: its header line, the timeline, the panels under it
// and the help, fitted to the terminal, and the small helpers they share.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/text"
)

// fit truncates s to w columns and pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// view draws the player: header, timeline, state, narration, help.
func (p playerView) view(st Styles, lang string, w, h int, hm help.Model, k KeyMap) string {
	if p.liveErr != nil && p.tr == nil {
		return st.Bad.Render(fit("lockstep: "+p.liveErr.Error(), w)) + "\n\n" + helpLine(hm, []key.Binding{k.Back, k.Quit}, w)
	}
	if !p.ready() {
		if p.live != nil {
			return st.Dim.Render(text.New("starting the live run…", "正在启动现场运行…").In(lang))
		}
		if p.recording != "" {
			return st.Warn.Render(fit(text.New("⏺ recording a real run on ", "⏺ 正在真实 Redis 上录制：").In(lang)+p.recording+" …", w)) + "\n" +
				st.Dim.Render(text.New("(watch it live with redis-cli MONITOR)", "（可用 redis-cli MONITOR 实时观看）").In(lang))
		}
		return st.Dim.Render(text.New("running the scenario…", "正在运行场景…").In(lang))
	}
	if p.compare {
		return p.compareView(st, lang, w, h, hm, k)
	}
	if len(p.tr.Events) == 0 { // a trace file's, which lockstep --trace refuses
		return st.Dim.Render(text.New("the trace has no events", "这份记录没有事件").In(lang)) + "\n\n" +
			helpLine(hm, []key.Binding{k.Back, k.Quit}, w)
	}
	e := p.tr.Events[p.step]
	// Steps are numbered from 0, as play and check --json number them.
	head := fmt.Sprintf("lockstep ─ %s%s × %s ─ t=%s ─ %s %d/%d%s ─ %s",
		p.lessonMark(lang), p.scenario.ID, p.impl, secs(e.T), text.New("step", "步骤").In(lang), p.step, len(p.tr.Events)-1, p.playMark(lang), p.tr.Title.In(lang))
	// The keys take a second line where one would leave some out.
	tail := []string{p.commandLine(st, lang, w), helpLines(hm, playerHelp{k, p.fixed, p.playing, lang}.ShortHelp(), w, 2)}
	if p.live != nil {
		tail[0] = p.liveLine(st, lang, w)
	}
	// The state leaves the title, two rules, two lines of narration, the
	// keys and a line of timeline their rows (many servers with many keys
	// would not).
	band := p.bandMax(st, lang, w, p.tr, p.step, h-2-1-2-2-1-lipgloss.Height(strings.Join(tail, "\n")))
	// The whole narration, wrapped: it may take rows from the timeline,
	// which keeps at least five. What still does not fit is cut with a mark
	// that says so, never silently.
	say := e.Text.In(lang)
	if p.flash != (text.Text{}) {
		say = p.flash.In(lang)
	}
	narrLines := strings.Split(st.Narration.Width(w).Render(say), "\n")
	fixed := []string{
		st.Rule.Render(strings.Repeat("─", w)),
		band,
		st.Rule.Render(strings.Repeat("─", w)),
	}
	room := h - 2 - lipgloss.Height(strings.Join(fixed, "\n")) - lipgloss.Height(strings.Join(tail, "\n")) - 5
	if p.recording != "" {
		room--
	}
	narrLines = clip(narrLines, max(room, 2), func(n int) string {
		return st.Dim.Render(fit(text.Newf("… %d more line%s: make the terminal taller to read them", "……还有 %d 行%s：把终端调高一些才能看到", n, plural(n)).In(lang), w))
	})
	for len(narrLines) < 2 {
		narrLines = append(narrLines, "")
	}
	bottom := append(append(fixed, narrLines...), tail...)
	// The title and the timeline (its header and its rows) take the rest.
	rows := h - 1 - lipgloss.Height(strings.Join(bottom, "\n"))
	top := []string{st.Title.Render(fit(head, w))}
	if p.recording != "" {
		top = append(top, st.Warn.Render(fit(text.New("⏺ a recording of a real run on ", "⏺ 真实 Redis 运行的录像：").In(lang)+p.recording, w)))
		rows--
	}
	top = append(top, p.timeline(st, lang, w, max(rows, 1))...)
	return strings.Join(append(top, bottom...), "\n")
}

// lessonMark says which lesson of a course plays: "lesson 2/5 ─ ".
func (p playerView) lessonMark(lang string) string {
	if p.lessons == 0 {
		return ""
	}
	return text.Newf("lesson %d/%d ─ ", "第 %d/%d 课 ─ ", p.lesson, p.lessons).In(lang)
}

func (p playerView) playMark(lang string) string {
	mark := ""
	if p.live != nil && !p.liveDone {
		mark = text.New(" ─ ● LIVE", " ─ ● 现场").In(lang)
	}
	if p.playing {
		mark = fmt.Sprintf(" ─ ▶ %v/s", speeds[p.speed])
	}
	if p.stopAt {
		mark += text.New(" ─ stops at ✗", " ─ 遇 ✗ 即停").In(lang)
	}
	return mark
}

// clip keeps lines to n; when there are more, the last line says how many
// more there are.
func clip(lines []string, n int, more func(hidden int) string) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n-1:n-1], more(len(lines)-(n-1)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	return lines[:min(n, len(lines))]
}
