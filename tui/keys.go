package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/lockstep-sim/lockstep/text"
)

// KeyMap is every key the TUI answers to. Keys are matched with key.Matches
// only.
type KeyMap struct {
	// Player.
	Next, Prev, Play, Faster, Slower, First, Last key.Binding
	Violation, Divergence, SwitchImpl, Compare    key.Binding
	StopAt                                        key.Binding
	// Start screen.
	Up, Down, Focus, Open, Sandbox key.Binding
	// Sandbox.
	Choose, MoveUp, MoveDown, Make, Undo, Reset, Hint, Faults, Save key.Binding
	// Everywhere.
	Lang, Back, Help, Quit key.Binding
}

// DefaultKeyMap is the key map lockstep ships with.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "step")),
		Prev:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "back")),
		Play:       key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "play")),
		Faster:     key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:     key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("−", "slower")),
		First:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Last:       key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		Violation:  key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "violation")),
		Divergence: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "divergence")),
		SwitchImpl: key.NewBinding(key.WithKeys("i", "tab"), key.WithHelp("i/tab", "impl")),
		Compare:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compare")),
		StopAt:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "stop at ✗")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Focus:      key.NewBinding(key.WithKeys("tab", "left", "right", "h", "l"), key.WithHelp("tab", "switch list")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Sandbox:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "sandbox")),
		Choose:     key.NewBinding(key.WithKeys(strings.Split(moveKeys, "")...), key.WithHelp("1-9 a-z", "move")),
		MoveUp:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "pick a move")),
		MoveDown:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "pick a move")),
		Make:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "make the picked move")),
		Undo:       key.NewBinding(key.WithKeys("u", "backspace"), key.WithHelp("u", "undo")),
		Reset:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "start again")),
		Hint:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "suggest")),
		Faults:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "faults")),
		Save:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "save trace")),
		Lang:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "English/中文")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the list")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:       key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// helpTexts are the keys' descriptions in both languages, found by their
// English (a key map's own descriptions, when not among them, stay as they
// are).
var helpTexts = []text.Text{
	{EN: "step", ZH: "下一步"}, {EN: "back", ZH: "上一步"}, {EN: "play", ZH: "播放/暂停"},
	{EN: "faster", ZH: "加速"}, {EN: "slower", ZH: "减速"}, {EN: "first", ZH: "第一步"},
	{EN: "last", ZH: "最后一步"}, {EN: "violation", ZH: "下个违规"}, {EN: "divergence", ZH: "首次分歧"},
	{EN: "impl", ZH: "切换实现"}, {EN: "compare", ZH: "对比"}, {EN: "up", ZH: "上"}, {EN: "down", ZH: "下"},
	{EN: "switch list", ZH: "切换列表"}, {EN: "open", ZH: "打开"}, {EN: "English/中文", ZH: "English/中文"},
	{EN: "help", ZH: "帮助"}, {EN: "quit", ZH: "退出"}, {EN: "back to the list", ZH: "返回列表"},
	{EN: "sandbox", ZH: "沙盒"}, {EN: "move", ZH: "走这一步"}, {EN: "undo", ZH: "撤销"},
	{EN: "start again", ZH: "重来"}, {EN: "suggest", ZH: "提示"}, {EN: "faults", ZH: "故障"},
	{EN: "stop at ✗", ZH: "遇 ✗ 即停"},
	{EN: "pick a move", ZH: "选择一步"}, {EN: "make the picked move", ZH: "走选中的一步"},
	{EN: "save trace", ZH: "保存记录"},
}

// In returns the key map with its descriptions in lang.
func (k KeyMap) In(lang string) KeyMap {
	for _, b := range []*key.Binding{&k.Next, &k.Prev, &k.Play, &k.Faster, &k.Slower, &k.First, &k.Last,
		&k.Violation, &k.Divergence, &k.SwitchImpl, &k.Compare, &k.StopAt, &k.Up, &k.Down, &k.Focus, &k.Open,
		&k.Sandbox, &k.Choose, &k.MoveUp, &k.MoveDown, &k.Make, &k.Undo, &k.Reset, &k.Hint, &k.Faults, &k.Save,
		&k.Lang, &k.Back, &k.Help, &k.Quit} {
		h := b.Help()
		if i := slices.IndexFunc(helpTexts, func(t text.Text) bool { return t.EN == h.Desc }); i >= 0 {
			b.SetHelp(h.Key, helpTexts[i].In(lang))
		}
	}
	return k
}

// playerHelp is the key map as the player shows it. fixed: a trace from a
// file, with no other implementation to switch to or compare with.
// playing: autoplay runs, and the footer offers space to pause it (in lang).
type playerHelp struct {
	k       KeyMap
	fixed   bool
	playing bool
	lang    string
}

func (h playerHelp) ShortHelp() []key.Binding {
	k := h.k
	// The footer says what space does now.
	say := text.New("play", "播放")
	if h.playing {
		say = text.New("pause", "暂停")
	}
	k.Play.SetHelp(k.Play.Help().Key, say.In(h.lang))
	if h.fixed {
		return []key.Binding{k.Next, k.Play, k.Violation, k.Help, k.Quit}
	}
	return []key.Binding{k.Next, k.Play, k.Violation, k.Compare, k.SwitchImpl, k.Help, k.Quit}
}

func (h playerHelp) FullHelp() [][]key.Binding {
	k := h.k
	full := [][]key.Binding{
		{k.Next, k.Prev, k.First, k.Last, k.Violation},
		{k.Play, k.Faster, k.Slower},
		{k.SwitchImpl, k.Compare, k.Divergence, k.StopAt},
		{k.Lang, k.Back, k.Help, k.Quit},
	}
	if h.fixed {
		full[2] = []key.Binding{k.StopAt}
	}
	return full
}

// startHelp is the key map as the start screen shows it.
type startHelp struct{ k KeyMap }

func (h startHelp) ShortHelp() []key.Binding {
	k := h.k
	// Where the line is short, the keys before "? help" go first, from the
	// right: the arrows are the ones a newcomer finds without being told.
	return []key.Binding{k.Open, k.Sandbox, k.Focus, k.Up, k.Down, k.Lang, k.Help, k.Quit}
}

func (h startHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{{k.Up, k.Down, k.Focus, k.Open, k.Sandbox}, {k.Lang, k.Help, k.Quit}}
}
