package tui

// The panels under the timeline: the state at the current event (servers
// and their keys, clients and what they believe, the invariants), the live
// run's line and the last command.

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

func lockKey(s trace.Snapshot, server, key string) (trace.KeyState, bool) {
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
	return trace.KeyState{}, false
}

func ttlText(k trace.KeyState) string {
	if k.TTL < 0 {
		return "∞"
	}
	return secs(k.TTL)
}

// band draws the state at event i in three columns: servers, clients and the
// resource, invariants.
func (p playerView) band(st Styles, lang string, w int, t *trace.Trace, i int) string {
	return p.bandMax(st, lang, w, t, i, 0)
}

// bandMax is band in at most n rows (no bound when n is 0): a column that
// is longer is cut, with a last line that says how many more it has.
func (p playerView) bandMax(st Styles, lang string, w int, t *trace.Trace, i, n int) string {
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

func (p playerView) serverLines(st Styles, lang string, t *trace.Trace, i, w int) []string {
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
func ttlBar(st Styles, lang string, k trace.KeyState, full time.Duration) string {
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
var beliefs = map[trace.Belief]text.Text{
	trace.BeliefIdle:     {EN: "idle", ZH: "未开始"},
	trace.BeliefWaiting:  {EN: "waiting", ZH: "等待中"},
	trace.BeliefHolds:    {EN: "holds", ZH: "持有锁"},
	trace.BeliefLost:     {EN: "lost", ZH: "丢锁"},
	trace.BeliefReleased: {EN: "released", ZH: "已释放"},
	trace.BeliefGaveUp:   {EN: "gave up", ZH: "已放弃"},
}

// releasing is a client whose release is under way: the trace's belief is
// already released (it no longer believes it holds the lock), but its
// release has commands still to send — get-then-del's A between its GET
// and its DEL (issue #41 item 14).
var releasing = text.New("releasing", "释放中")

// readHold marks a reader's hold of a read-write lock, after its token:
// shared with the other readers, so two clients that hold it at once break
// nothing (the timeline's lane says it too, narrate.ShortAcquired).
var readHold = text.New(" (read)", "（读）")

// beliefWord is client c's belief as the client list shows it.
func beliefWord(c trace.ClientState, lang string) string {
	if c.Belief == trace.BeliefReleased && c.Op == trace.OpRelease {
		return releasing.In(lang)
	}
	if t, ok := beliefs[c.Belief]; ok {
		return t.In(lang)
	}
	return string(c.Belief) // a trace file's belief that lockstep does not know
}

func clientLines(st Styles, lang string, t *trace.Trace, i int) []string {
	snap := t.Events[i].Snap
	lines := []string{st.Dim.Render(text.New("Clients", "客户端").In(lang))}
	for _, c := range snap.Clients {
		b := beliefWord(c, lang)
		if c.Belief == trace.BeliefHolds {
			b = st.Header.Render(b)
			if c.Token != "" {
				b += " " + c.Token
			}
			if c.Fence > 0 {
				b += fmt.Sprintf(" ⚑%d", c.Fence)
			}
			if c.ReadLock {
				b += readHold.In(lang)
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

func invariantLines(st Styles, lang string, t *trace.Trace, i int) []string {
	lines := []string{st.Dim.Render(text.New("Invariants", "不变量").In(lang))}
	for _, v := range t.Verdicts {
		mark := st.Good.Render("✓")
		if v.Broken && v.Step <= i {
			mark = st.Bad.Render("✗ " + text.New(fmt.Sprintf("step %d", v.Step), fmt.Sprintf("第 %d 步", v.Step)).In(lang))
		}
		name := v.Invariant
		if lang == "zh" {
			name = invariant.NameOf(v.Invariant).ZH // 互斥: the id is in the English view and the flags
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
		if e.Kind != trace.KindCommand {
			continue
		}
		line := fmt.Sprintf("%s> %s → %s", e.Server, e.Command, e.ReplyIn(lang))
		if i == p.step {
			return st.Command.Render(fit(line, w))
		}
		return st.Dim.Render(fit(text.New("last command: ", "上一条命令：").In(lang)+line, w))
	}
	return ""
}
