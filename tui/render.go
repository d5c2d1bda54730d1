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

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
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

// lanes are the timeline's columns: clients, servers, the resource.
func lanes(tr *sim.Trace) []string {
	out := slices.Clone(tr.Clients)
	out = append(out, tr.Servers...)
	return append(out, "stock")
}

// serversLane is the one lane that stands for every server when there are
// too many for a lane each (Redlock at 80 columns): a column per server,
// headed by its number, with a one-character mark for what the event did
// there (the help's legend lists them).
const serversLane = "redis"

// minLaneW is the narrowest lane that still shows a command and its reply.
const minLaneW = 12

// timeline draws the lane header and rows events, the current one marked.
func (p playerView) timeline(st Styles, lang string, w, rows int) []string {
	ls := lanes(p.tr)
	const gutter, timeW = 2, 7
	lw := (w - gutter - timeW - len(ls)) / len(ls)
	compact := len(p.tr.Servers) > 2 && lw < minLaneW
	srvW := 0
	if compact {
		ls = append(append(slices.Clone(p.tr.Clients), serversLane), "stock")
		srvW = len(serversLane) + 2*len(p.tr.Servers)
		lw = (w - gutter - timeW - len(ls) - srvW) / (len(ls) - 1)
	}
	width := func(l string) int {
		if l == serversLane && compact {
			return srvW
		}
		return lw
	}
	hdr := strings.Repeat(" ", gutter) + fit(text.New("t", "时间").In(lang), timeW)
	for _, l := range ls {
		name := l
		if l == serversLane && compact {
			name = serversLane
			for j := range p.tr.Servers {
				name += fmt.Sprintf(" %d", j+1)
			}
		}
		if l == "stock" {
			name = text.New("stock", "库存").In(lang)
		}
		hdr += "│" + fit(name, width(l))
	}
	out := []string{st.Header.Render(fit(hdr, w))}
	rows--
	first := max(0, min(p.step-rows*2/3, len(p.tr.Events)-rows))
	for i := first; i < min(first+rows, len(p.tr.Events)); i++ {
		if p.noSpoilers && i > p.step {
			break // what comes next is the class's to guess
		}
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
			if compact {
				cells[serversLane] = serverMarks(p.tr, i, cells)
			}
			for _, l := range ls {
				line += "│" + fit(cells[l], width(l))
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

// serverMarks is the compact servers lane for event i: under each server's
// number, a mark for what happened there.
func serverMarks(t *sim.Trace, i int, cells map[string]string) string {
	e := t.Events[i]
	row := []rune(strings.Repeat(" ", len(serversLane)+2*len(t.Servers)))
	for j, srv := range t.Servers {
		if e.Server != srv {
			continue
		}
		mark := '∅' // a command that changed nothing: refused
		switch c := []rune(cells[srv]); {
		case e.Kind == sim.KindExpire:
			mark = '○'
		case e.Kind == sim.KindFault:
			mark = '!'
		case e.Kind == sim.KindSchedule:
			mark = '~' // on its way to a slow server
		case e.Kind == sim.KindCommand && len(c) > 0 && strings.ContainsRune("+−=⟳", c[0]):
			mark = c[0]
		case e.Kind == sim.KindCommand && strings.HasPrefix(e.Reply, "(error)"):
			mark = '✗'
		}
		row[len(serversLane)+2*j+1] = mark
	}
	return string(row)
}

// laneCells says what each lane shows for event i: the actor's label in its
// client's lane, the effect on the lock in the server's lane, the stock in
// the resource's.
func laneCells(t *sim.Trace, i int, lang string) map[string]string {
	e := t.Events[i]
	cells := map[string]string{}
	actor, bg, _ := sim.SplitActor(e.Actor)
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
	return p.bandMax(st, lang, w, t, i, 0)
}

// bandMax is band in at most n rows (no bound when n is 0): a column that
// is longer is cut, with a last line that says how many more it has.
func (p playerView) bandMax(st Styles, lang string, w int, t *sim.Trace, i, n int) string {
	colW := (w - 2) / 3
	cols := []string{
		strings.Join(p.serverLines(st, lang, t, i, colW), "\n"),
		strings.Join(clientLines(st, lang, t, i), "\n"),
		strings.Join(invariantLines(st, lang, t, i), "\n"),
	}
	for j := range cols {
		lines := strings.Split(cols[j], "\n")
		if n > 0 {
			lines = clip(lines, max(n, 2), func(more int) string {
				return st.Dim.Render(text.Newf("… %d more", "……还有 %d 行", more).In(lang))
			})
		}
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
			role := roleText(srv.Role, lang)
			if srv.ReplicaOf != "" {
				role = text.New("replica", "从库").In(lang)
				lag = st.Dim.Render(text.Newf(" lag %s, %d pending", " 延迟 %s，%d 条待复制", secs(srv.Lag), srv.Pending).In(lang))
			}
			name += " " + st.Dim.Render(role)
		}
		if !srv.Up {
			lines = append(lines, name+" "+st.Bad.Render(text.New("DOWN", "宕机").In(lang)))
			continue
		}
		if srv.ClockAhead > 0 {
			lines = append(lines, srv.Name+" "+st.Warn.Render(text.Newf("clock %s ahead", "时钟快了 %s", secs(srv.ClockAhead)).In(lang)))
		}
		if len(srv.Keys) == 0 {
			lines = append(lines, name+" "+st.Dim.Render(text.New("(no keys)", "（空）").In(lang)))
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
			kv := label + "=" + k.Value
			if compact && label == "lock" {
				kv = k.Value // the panel's heading names the lock's key
			}
			lines = append(lines, fmt.Sprintf("%s%s %s", prefix, kv, ttlBar(st, lang, k, t.TTL)))
		}
	}
	return lines
}

// roles are the servers' roles as the panel says them.
var roles = map[string]text.Text{
	"primary":        {EN: "primary", ZH: "主库"},
	"replica":        {EN: "replica", ZH: "从库"},
	"primary (down)": {EN: "primary (down)", ZH: "主库（宕机）"},
	"cluster master": {EN: "cluster master", ZH: "集群主节点"},
	"node":           {EN: "node", ZH: "节点"}, // Redlock's: shown only in a trace file of two servers
}

// roleText is a server's role in lang; one the panel does not know, as
// the trace has it.
func roleText(role, lang string) string {
	if r, ok := roles[role]; ok {
		return r.In(lang)
	}
	return role
}

// ttlBar is a countdown: the lease left as a bar and in seconds.
func ttlBar(st Styles, lang string, k sim.KeyState, full time.Duration) string {
	const n = 6
	if k.TTL < 0 {
		return st.Warn.Render(text.New("no TTL", "没有过期时间").In(lang))
	}
	filled := int(float64(n)*float64(k.TTL)/float64(full) + 0.5)
	filled = max(0, min(filled, n))
	return st.Bar.Render(strings.Repeat("█", filled)) + st.Dim.Render(strings.Repeat("░", n-filled)) + " " + secs(k.TTL)
}

// beliefs are the beliefs as the client list shows them: in words, not
// the engine's names for them (gave-up).
var beliefs = map[sim.Belief]text.Text{
	sim.BeliefIdle:     {EN: "idle", ZH: "未开始"},
	sim.BeliefWaiting:  {EN: "waiting", ZH: "等待中"},
	sim.BeliefHolds:    {EN: "holds", ZH: "持有锁"},
	sim.BeliefLost:     {EN: "lost", ZH: "丢锁"},
	sim.BeliefReleased: {EN: "released", ZH: "已释放"},
	sim.BeliefGaveUp:   {EN: "gave up", ZH: "已放弃"},
}

func clientLines(st Styles, lang string, t *sim.Trace, i int) []string {
	snap := t.Events[i].Snap
	lines := []string{st.Dim.Render(text.New("Clients", "客户端").In(lang))}
	for _, c := range snap.Clients {
		b := string(c.Belief) // a trace file's belief that lockstep does not know
		if t, ok := beliefs[c.Belief]; ok {
			b = t.In(lang)
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
		if c.Crashed {
			// A dead process believes nothing: what it held, if anything,
			// is on the servers.
			lines = append(lines, c.Name+" "+st.Bad.Render(text.New("crashed", "已崩溃").In(lang)))
			continue
		}
		var flags []string
		if c.Paused {
			// ⏸ is the scheduler's hold; a stopped process is spelled out,
			// as the timeline's PAUSE and RESUME are.
			flags = append(flags, st.Warn.Render(text.New("PAUSED", "进程停顿").In(lang)))
		}
		if c.Held {
			// Not "held": "A holds A#1 ⏸ held" reads as nonsense.
			flags = append(flags, st.Warn.Render(text.New("⏸ parked", "⏸ 被挂起").In(lang)))
		}
		if c.Hung {
			flags = append(flags, st.Warn.Render(text.New("⧗ hung", "⧗ 卡死").In(lang)))
		}
		lines = append(lines, strings.Join(append([]string{c.Name, b}, flags...), " "))
	}
	r := snap.Resource
	res := fmt.Sprintf("%s %d (v%d)", text.New("stock", "库存").In(lang), r.Value, r.Version)
	if r.MaxFence > 0 {
		res += fmt.Sprintf(" ⚑≥%d", r.MaxFence)
	}
	return append(lines, res)
}

func invariantLines(st Styles, lang string, t *sim.Trace, i int) []string {
	lines := []string{st.Dim.Render(text.New("Invariants", "不变量").In(lang))}
	for _, v := range t.Verdicts {
		mark := st.Good.Render("✓")
		if v.Broken && v.Step <= i {
			mark = st.Bad.Render("✗ " + text.New(fmt.Sprintf("step %d", v.Step), fmt.Sprintf("第 %d 步", v.Step)).In(lang))
		}
		name := v.Invariant
		if lang == "zh" {
			name = sim.InvariantName(v.Invariant).ZH // 互斥: the id is in the English view and the flags
		}
		lines = append(lines, name+strings.Repeat(" ", max(1, 11-lipgloss.Width(name)))+mark)
	}
	return lines
}

// liveLine says where a live run stands: the command → sends next, the
// run at work, or its end.
func (p playerView) liveLine(st Styles, lang string, w int) string {
	switch {
	case p.liveErr != nil:
		return st.Bad.Render(fit(text.New("the live run failed: ", "现场运行失败：").In(lang)+p.liveErr.Error(), w))
	case p.liveDone:
		return st.Dim.Render(fit(text.New("the live run is over; its keys are removed", "现场运行结束；它的 key 已清理").In(lang), w))
	case p.waiting && p.step >= len(p.tr.Events)-1:
		return st.Command.Render(fit(text.New("→ sends ", "→ 发送 ").In(lang)+p.nextCmd, w))
	case p.waiting:
		return st.Dim.Render(fit(text.New("next, when you reach the end: ", "走到最后后发送：").In(lang)+p.nextCmd, w))
	}
	return st.Dim.Render(fit(text.New("running…", "运行中…").In(lang), w))
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
		return st.Dim.Render(fit(text.New("last command: ", "上一条命令：").In(lang)+line, w))
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
	narration := func(t *sim.Trace, i int) string {
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
