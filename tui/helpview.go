package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"github.com/lockstep-sim/lockstep/text"
)

// This file draws the help (?): the keys of the screen under it and the
// legend of the timeline's marks, in a box. Where the box with the keys in
// columns does not fit the terminal (64×20), the keys go one group to a
// line, without blank lines between the parts, and at the last without the
// box's border.

// helpLayout is one way of drawing the help, from the roomiest.
type helpLayout struct {
	columns bool // the keys in columns, as bubbles/help draws them
	border  bool
}

var helpLayouts = []helpLayout{{columns: true, border: true}, {border: true}, {}}

func (m Model) helpView() string {
	var keys help.KeyMap = startHelp{m.keys.In(m.lang)}
	switch m.screen {
	case screenPlayer:
		keys = playerHelp{k: m.keys.In(m.lang), fixed: m.player.fixed, lang: m.lang}
	case screenSandbox:
		keys = sandboxHelp{m.keys.In(m.lang)}
	}
	leg := strings.Split(legend.In(m.lang), "\n")
	if m.screen == screenPlayer && m.player.fixed {
		// No compare mode for a trace from a file: its line goes.
		leg = leg[:len(leg)-1]
	}
	var box string
	for _, l := range helpLayouts {
		box = m.helpBox(keys, leg, l)
		if lipgloss.Height(box) <= m.height && lipgloss.Width(box) <= m.width {
			break
		}
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box)
}

// helpBox draws the help in layout l.
func (m Model) helpBox(keys help.KeyMap, leg []string, l helpLayout) string {
	boxW := min(m.width-4, 76)
	inner := boxW - 2 // the padding
	if !l.border {
		inner = m.width
	}
	var keyLines []string
	if l.columns {
		h := m.help
		h.ShowAll, h.Width = true, 0
		keyLines = []string{h.View(keys)}
	} else {
		for _, group := range keys.FullHelp() {
			var items []string
			for _, b := range group {
				items = append(items, m.help.Styles.FullKey.Render(b.Help().Key)+" "+m.help.Styles.FullDesc.Render(b.Help().Desc))
			}
			keyLines = append(keyLines, wrapItems(items, m.help.Styles.FullSeparator.Render(" • "), inner)...)
		}
	}
	var legLines []string
	for _, line := range leg {
		legLines = append(legLines, wrapHanging(strings.Split(line, " · "), " · ", inner, "  ")...)
	}
	title := m.styles.Title.Render(text.New("Keys", "按键").In(m.lang))
	closing := m.styles.Dim.Render(text.New("? or esc closes this help", "按 ? 或 esc 关闭帮助").In(m.lang))
	parts := []string{title, strings.Join(keyLines, "\n"), strings.Join(legLines, "\n"), closing}
	sep := "\n"
	if l.columns {
		sep = "\n\n"
	}
	body := strings.Join(parts, sep)
	if l.columns && lipgloss.Width(keyLines[0]) > inner {
		// The columns are wider than the box: this layout does not fit.
		return body + strings.Repeat("\n", m.height)
	}
	if !l.border {
		// Lines of one width: Place centres the block, not each line.
		lines := strings.Split(body, "\n")
		for i := range lines {
			lines[i] = fitStyled(lines[i], inner)
		}
		return strings.Join(lines, "\n")
	}
	return m.styles.Box.Width(boxW).Render(body)
}

// legend explains the timeline's marks, in the help: a line for each kind
// of mark, its items apart by " · " (a line too long for the help breaks
// between them).
var legend = text.Text{
	EN: `In the timeline: ▶ the current step · » narration · ✗ a broken invariant
⟳ a watchdog's command · ⏸ a client held by the scheduler · ⚑ fencing token
Servers in one column (Redlock): + written · − deleted · = overwritten
⟳ renewed · ∅ refused: nothing changed · ○ expired · ✗ the command failed
! a fault · ~ on its way to a slow server
Clients: ⏸ parked by the scheduler · PAUSED its whole process stopped (GC)
⧗ hung: its business thread is stuck · crashed: the process is dead
In compare mode: ≠ where the two implementations differ`,
	ZH: `时间线：▶ 当前步骤 · » 旁白 · ✗ 被破坏的不变量
⟳ 看门狗的命令 · ⏸ 被调度器挂起的客户端 · ⚑ 栅栏令牌（fencing token）
服务器合为一列（Redlock）：+ 写入 · − 删除 · = 覆盖 · ⟳ 续期
∅ 被拒绝：没有改变 · ○ 过期 · ✗ 命令失败 · ! 故障 · ~ 正在发往慢服务器
客户端：⏸ 被调度器挂起 · 进程停顿：整个进程停住了（GC）
⧗ 卡死：业务线程卡住了 · 已崩溃：进程已经死了
对比模式：≠ 两种实现出现差异的地方`,
}
