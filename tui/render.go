package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
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
	if !p.ready() {
		if p.recording != "" {
			return st.Warn.Render(fit(tr(lang, "⏺ recording a real run on ", "⏺ 正在真实 Redis 上录制：")+p.recording+" …", w)) + "\n" +
				st.Dim.Render(tr(lang, "(watch it live with redis-cli MONITOR)", "（可用 redis-cli MONITOR 实时观看）"))
		}
		return st.Dim.Render(tr(lang, "running the scenario…", "正在运行场景…"))
	}
	if p.compare {
		return p.compareView(st, lang, w, h, hm, k)
	}
	if len(p.tr.Events) == 0 { // a trace file's, which lockstep --trace refuses
		return st.Dim.Render(tr(lang, "the trace has no events", "这份记录没有事件")) + "\n\n" +
			helpLine(hm, []key.Binding{k.Back, k.Quit}, w)
	}
	e := p.tr.Events[p.step]
	head := fmt.Sprintf("lockstep ─ %s × %s ─ t=%s ─ %s %d/%d%s ─ %s",
		p.scenario.ID, p.impl, secs(e.T), tr(lang, "step", "步骤"), p.step+1, len(p.tr.Events), p.playMark(), p.tr.Title.In(lang))
	band := p.band(st, lang, w, p.tr, p.step)
	narr := st.Narration.Width(w).Render(e.Text.In(lang))
	narr = strings.Join(firstLines(narr, 2), "\n")
	bottom := []string{
		st.Rule.Render(strings.Repeat("─", w)),
		band,
		st.Rule.Render(strings.Repeat("─", w)),
		narr + strings.Repeat("\n", 2-lipgloss.Height(narr)),
		p.commandLine(st, lang, w),
		helpLine(hm, playerHelp{k}.ShortHelp(), w),
	}
	rows := h - 2 - lipgloss.Height(strings.Join(bottom, "\n"))
	top := []string{st.Title.Render(fit(head, w))}
	if p.recording != "" {
		top = append(top, st.Warn.Render(fit(tr(lang, "⏺ a recording of a real run on ", "⏺ 真实 Redis 运行的录像：")+p.recording, w)))
		rows--
	}
	top = append(top, p.timeline(st, lang, w, max(rows, 1))...)
	return strings.Join(append(top, bottom...), "\n")
}

func (p playerView) playMark() string {
	if p.playing {
		return fmt.Sprintf(" ─ ▶ %v/s", speeds[p.speed])
	}
	return ""
}

func firstLines(s string, n int) []string {
	lines := strings.Split(s, "\n")
	return lines[:min(n, len(lines))]
}

// lanes are the timeline's columns: clients, servers, the resource.
func lanes(tr *sim.Trace) []string {
	out := slices.Clone(tr.Clients)
	out = append(out, tr.Servers...)
	return append(out, "stock")
}

// timeline draws the lane header and rows events, the current one marked.
func (p playerView) timeline(st Styles, lang string, w, rows int) []string {
	ls := lanes(p.tr)
	const gutter, timeW = 2, 7
	lw := (w - gutter - timeW - len(ls)) / len(ls)
	hdr := strings.Repeat(" ", gutter) + fit(tr(lang, "t", "时间"), timeW)
	for _, l := range ls {
		hdr += "│" + fit(l, lw)
	}
	out := []string{st.Header.Render(fit(hdr, w))}
	rows--
	first := max(0, min(p.step-rows*2/3, len(p.tr.Events)-rows))
	for i := first; i < min(first+rows, len(p.tr.Events)); i++ {
		e := p.tr.Events[i]
		mark := "  "
		if i == p.step {
			mark = "▶ "
		}
		line := mark + fit(fmt.Sprintf("%6.1f", e.T.Seconds()), timeW)
		style := st.Narration
		switch e.Kind {
		case sim.KindNarration:
			line += "» " + e.Text.In(lang)
			style = st.Dim
		case sim.KindViolation:
			line += "✗ " + e.Text.In(lang)
			style = st.Bad
		default:
			cells := laneCells(p.tr, i, lang)
			for _, l := range ls {
				line += "│" + fit(cells[l], lw)
			}
			if e.Kind == sim.KindFault || e.Kind == sim.KindSchedule {
				style = st.Warn
			}
		}
		line = fit(line, w)
		if i == p.step {
			style = st.Current
		}
		out = append(out, style.Render(line))
	}
	for len(out) < rows+1 {
		out = append(out, "")
	}
	return out
}

// laneCells says what each lane shows for event i: the actor's label in its
// client's lane, the effect on the lock in the server's lane, the stock in
// the resource's.
func laneCells(t *sim.Trace, i int, lang string) map[string]string {
	e := t.Events[i]
	cells := map[string]string{}
	actor, bg := e.Actor, false
	if c, _, ok := strings.Cut(e.Actor, "."); ok {
		actor, bg = c, true
	}
	short := e.Short.In(lang)
	if bg {
		short = "⟳ " + short
	}
	switch e.Kind {
	case sim.KindExpire, sim.KindReplicate:
		cells[e.Server] = short
	case sim.KindFault:
		if e.Actor != "" {
			cells[actor] = short
		} else {
			cells[e.Server] = short
		}
	case sim.KindCommand:
		cells[actor] = short
		cells[e.Server] = effect(t, i, e.Server)
	case sim.KindResource:
		cells[actor] = short
		if i > 0 && t.Events[i-1].Snap.Resource != e.Snap.Resource {
			cells["stock"] = fmt.Sprintf("= %d", e.Snap.Resource.Value)
		}
	default:
		if actor != "" {
			cells[actor] = short
		}
	}
	return cells
}

// effect describes what command event i did to the lock key on server.
func effect(t *sim.Trace, i int, server string) string {
	after, okA := lockKey(t.Events[i].Snap, server, t.Key)
	if i == 0 {
		if okA {
			return "+ " + after.Value
		}
		return ""
	}
	before, okB := lockKey(t.Events[i-1].Snap, server, t.Key)
	// The lease has run down since the previous event; only a TTL above
	// that is a renewal.
	left := before.TTL - (t.Events[i].T - t.Events[i-1].T)
	switch {
	case okA && !okB:
		return "+ " + after.Value
	case !okA && okB:
		return "− " + before.Value
	case !okA:
		return ""
	case after.Value != before.Value:
		return "= " + after.Value
	case before.TTL > 0 && after.TTL > left+t.TTL/10: // beyond a real server's jitter
		return "⟳ " + after.Value
	case before.TTL < 0 && after.TTL > 0:
		return "ttl " + ttlText(after)
	}
	return ""
}

func lockKey(s sim.Snapshot, server, key string) (sim.KeyState, bool) {
	for _, srv := range s.Servers {
		if srv.Name != server {
			continue
		}
		for _, k := range srv.Keys {
			if k.Key == key {
				return k, true
			}
		}
	}
	return sim.KeyState{}, false
}

func ttlText(k sim.KeyState) string {
	if k.TTL < 0 {
		return "∞"
	}
	return secs(k.TTL)
}

// band draws the state at event i in three columns: servers, clients and the
// resource, invariants.
func (p playerView) band(st Styles, lang string, w int, t *sim.Trace, i int) string {
	colW := (w - 2) / 3
	cols := []string{
		strings.Join(p.serverLines(st, lang, t, i, colW), "\n"),
		strings.Join(clientLines(st, lang, t, i), "\n"),
		strings.Join(invariantLines(st, lang, t, i), "\n"),
	}
	for j := range cols {
		lines := strings.Split(cols[j], "\n")
		for n := range lines {
			lines[n] = fitStyled(lines[n], colW)
		}
		cols[j] = strings.Join(lines, "\n")
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, cols[0], " ", cols[1], " ", cols[2])
}

// fitStyled fits a line that may carry styling to w columns.
func fitStyled(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func (p playerView) serverLines(st Styles, lang string, t *sim.Trace, i, w int) []string {
	snap := t.Events[i].Snap
	lines := []string{st.Dim.Render("Redis · " + t.Key)}
	compact := len(snap.Servers) > 2
	for _, srv := range snap.Servers {
		name := srv.Name
		lag := ""
		if !compact {
			role := srv.Role
			if srv.ReplicaOf != "" {
				role = tr(lang, "replica", "从库")
				lag = st.Dim.Render(fmt.Sprintf(tr(lang, " lag %s, %d pending", " 延迟 %s，%d 条待复制"), secs(srv.Lag), srv.Pending))
			}
			name += " " + st.Dim.Render(role)
		}
		if !srv.Up {
			lines = append(lines, name+" "+st.Bad.Render(tr(lang, "DOWN", "宕机")))
			continue
		}
		if srv.ClockAhead > 0 {
			lines = append(lines, srv.Name+" "+st.Warn.Render(fmt.Sprintf(tr(lang, "clock %s ahead", "时钟快了 %s"), secs(srv.ClockAhead))))
		}
		if len(srv.Keys) == 0 {
			lines = append(lines, name+" "+st.Dim.Render(tr(lang, "(no keys)", "（空）")))
			if lag != "" {
				lines = append(lines, lag)
			}
			continue
		}
		if !compact {
			lines = append(lines, name)
		}
		if lag != "" {
			lines = append(lines, lag)
		}
		for _, k := range srv.Keys {
			label := k.Key
			switch k.Key {
			case t.Key:
				label = "lock"
			case lockimpl.FenceKey(t.Key):
				label = "fence"
			}
			prefix := " "
			if compact {
				prefix = srv.Name + " "
			}
			lines = append(lines, fmt.Sprintf("%s%s=%s %s", prefix, label, k.Value, ttlBar(st, k, t.TTL)))
		}
	}
	return lines
}

// ttlBar is a countdown: the lease left as a bar and in seconds.
func ttlBar(st Styles, k sim.KeyState, full time.Duration) string {
	const n = 6
	if k.TTL < 0 {
		return st.Warn.Render("no TTL")
	}
	filled := int(float64(n)*float64(k.TTL)/float64(full) + 0.5)
	filled = max(0, min(filled, n))
	return st.Bar.Render(strings.Repeat("█", filled)) + st.Dim.Render(strings.Repeat("░", n-filled)) + " " + secs(k.TTL)
}

var beliefZH = map[sim.Belief]string{
	sim.BeliefIdle: "未开始", sim.BeliefWaiting: "等待中", sim.BeliefHolds: "持有锁",
	sim.BeliefLost: "丢锁", sim.BeliefReleased: "已释放", sim.BeliefGaveUp: "已放弃",
}

func clientLines(st Styles, lang string, t *sim.Trace, i int) []string {
	snap := t.Events[i].Snap
	lines := []string{st.Dim.Render(tr(lang, "Clients", "客户端"))}
	for _, c := range snap.Clients {
		b := string(c.Belief)
		if lang == "zh" {
			b = beliefZH[c.Belief]
		}
		if c.Belief == sim.BeliefHolds {
			b = st.Header.Render(b)
			if c.Token != "" {
				b += " " + c.Token
			}
			if c.Fence > 0 {
				b += fmt.Sprintf(" ⚑%d", c.Fence)
			}
		}
		var flags []string
		if c.Crashed {
			flags = append(flags, st.Bad.Render(tr(lang, "crashed", "已崩溃")))
		}
		if c.Paused {
			flags = append(flags, st.Warn.Render(tr(lang, "⏸ paused", "⏸ 停顿中")))
		}
		if c.Held {
			flags = append(flags, st.Warn.Render(tr(lang, "⏸ held", "⏸ 被挂起")))
		}
		if c.Hung {
			flags = append(flags, st.Warn.Render(tr(lang, "⧗ hung", "⧗ 卡死")))
		}
		lines = append(lines, strings.Join(append([]string{c.Name, b}, flags...), " "))
	}
	r := snap.Resource
	res := fmt.Sprintf("%s %d (v%d)", tr(lang, "stock", "库存"), r.Value, r.Version)
	if r.MaxFence > 0 {
		res += fmt.Sprintf(" ⚑≥%d", r.MaxFence)
	}
	return append(lines, res)
}

func invariantLines(st Styles, lang string, t *sim.Trace, i int) []string {
	lines := []string{st.Dim.Render(tr(lang, "Invariants", "不变量"))}
	for _, v := range t.Verdicts {
		mark := st.Good.Render("✓")
		if v.Broken && v.Step <= i {
			mark = st.Bad.Render(fmt.Sprintf("✗ %s %d", tr(lang, "step", "步骤"), v.Step+1))
		}
		lines = append(lines, fmt.Sprintf("%-10s %s", v.Invariant, mark))
	}
	return lines
}

// commandLine shows the literal command of this step, or the last one before
// it, dimmed.
func (p playerView) commandLine(st Styles, lang string, w int) string {
	for i := p.step; i >= 0; i-- {
		e := p.tr.Events[i]
		if e.Kind != sim.KindCommand {
			continue
		}
		line := fmt.Sprintf("%s> %s → %s", e.Server, e.Command, e.Reply)
		if i == p.step {
			return st.Command.Render(fit(line, w))
		}
		return st.Dim.Render(fit(tr(lang, "last command: ", "上一条命令：")+line, w))
	}
	return ""
}

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
	div := tr(lang, "no divergence", "完全一致")
	if p.diverge >= 0 {
		div = fmt.Sprintf(tr(lang, "≠ from row %d", "≠ 始于第 %d 行"), p.diverge+1)
	}
	head := fmt.Sprintf("%s ─ %s vs %s ─ %s %d/%d ─ t=%s ─ %s%s",
		p.scenario.ID, p.impl, p.other, tr(lang, "row", "行"), p.row+1, len(p.rows), secs(at), div, p.playMark())

	const gutter, timeW, mid = 2, 7, 3
	sideW := (w - gutter - timeW - mid) / 2
	// The bottom: invariants of each side, the narration of each side, help.
	inv := func(t *sim.Trace, i int) string {
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
	text := func(t *sim.Trace, i int) string {
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
		fit(p.impl+": "+text(p.tr, l), w),
		fit(p.other+": "+text(p.otr, r), w),
		helpLine(hm, playerHelp{k}.ShortHelp(), w),
	}
	rows := h - 2 - len(bottom)
	if p.recording != "" {
		head += tr(lang, " ─ ⏺ recorded on ", " ─ ⏺ 录制于 ") + p.recording
	}
	out := []string{st.Title.Render(fit(head, w)),
		st.Header.Render(fit(strings.Repeat(" ", gutter)+fit(tr(lang, "t", "时间"), timeW)+fit(p.impl, sideW)+" │ "+p.other, w))}
	first := max(0, min(p.row-rows*2/3, len(p.rows)-rows))
	for i := first; i < min(first+rows, len(p.rows)); i++ {
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

// sideText is one trace's event in a few words for compare mode.
func sideText(t *sim.Trace, i int, lang string) string {
	if i < 0 {
		return ""
	}
	e := t.Events[i]
	switch e.Kind {
	case sim.KindNarration:
		return "» " + e.Text.In(lang)
	case sim.KindViolation:
		return "✗ " + e.Text.In(lang)
	}
	who := e.Actor
	if who == "" {
		who = e.Server
	}
	if e.Kind == sim.KindCommand {
		return who + " " + e.Server + " " + e.Short.In(lang)
	}
	return who + " " + e.Short.In(lang)
}

// helpLine is the one-line key help, cut to the width (the help bubble
// miscounts wide characters).
func helpLine(hm help.Model, keys []key.Binding, w int) string {
	return ansi.Truncate(hm.ShortHelpView(keys), w, "…")
}
