package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"lockstep/lockimpl"
	"lockstep/scenarios"
	"lockstep/scenarios/explore"
	"lockstep/scenarios/sim"
)

// faultSets are the fault sets the sandbox offers, in the order f cycles
// through them.
var faultSets = [][]sim.Fault{
	{sim.FaultExpiry},
	{sim.FaultExpiry, sim.FaultPause},
	{sim.FaultExpiry, sim.FaultCrash},
	{sim.FaultExpiry, sim.FaultPause, sim.FaultCrash, sim.FaultFailover, sim.FaultRestart},
}

// sandboxView is the sandbox: the student is the scheduler. It lists the
// moves the world allows — a client's next command, time passing, a fault —
// and makes the one chosen, until an invariant breaks.
type sandboxView struct {
	impl   lockimpl.Info
	faults int // index into faultSets
	st     *sim.Stepper
	tr     *sim.Trace
	moves  []sim.Move
	cursor int // the move enter makes
	err    error

	hint     string // the suggested move's label, or why there is none
	hinting  bool
	hintMove string
	// hintGen numbers the searches: every change of state moves it on, so
	// that an answer for a state the sandbox has left is dropped. stop
	// cancels the running search.
	hintGen int
	stop    context.CancelFunc
}

// hintMsg brings the explorer's suggestion for the search numbered gen in
// the world st (a sandbox opened again numbers from the start).
type hintMsg struct {
	st   *sim.Stepper
	gen  int
	move string
	text sim.Text
}

func newSandbox(impl lockimpl.Info, faults int) sandboxView {
	v := sandboxView{impl: impl, faults: faults}
	v.reset(nil)
	return v
}

// reset builds the world again and replays moves.
func (v *sandboxView) reset(moves []string) {
	v.close()
	st, err := explore.NewWorld(v.impl, 2, 1, faultSets[v.faults])
	if err != nil {
		v.err = err
		return
	}
	for _, m := range moves {
		if err := st.Do(m); err != nil {
			v.err = err
			break
		}
	}
	v.st = st
	v.refresh()
}

func (v *sandboxView) refresh() {
	v.tr = v.st.Trace()
	v.moves, v.cursor = nil, 0
	if len(v.st.Broken()) == 0 {
		v.moves = v.st.Moves()
	}
}

// close ends the world, and the search for a hint if one runs.
func (v *sandboxView) close() {
	v.forgetHint()
	if v.st != nil {
		v.st.Close()
		v.st = nil
	}
}

func (v *sandboxView) schedule() []string {
	if v.st == nil {
		return nil
	}
	return v.st.Schedule()
}

// moveKeys are the keys of the moves in the list, in order: the digits,
// then the letters no other key of the sandbox uses.
const moveKeys = "123456789abcdeghijklmnoptvxyz"

// moveKey is the key of move i, "" past the last.
func moveKey(i int) string {
	if i < len(moveKeys) {
		return moveKeys[i : i+1]
	}
	return ""
}

// key handles a key at screen size w×h (a move's key works only while the
// move is on screen); it may start a hint search.
func (v *sandboxView) key(msg tea.KeyMsg, k KeyMap, w, h int) tea.Cmd {
	switch {
	case key.Matches(msg, k.Undo):
		if s := v.schedule(); len(s) > 0 {
			v.reset(s[:len(s)-1])
		}
	case key.Matches(msg, k.Reset):
		v.reset(nil)
	case key.Matches(msg, k.Faults):
		v.faults = (v.faults + 1) % len(faultSets)
		v.reset(nil)
	case key.Matches(msg, k.Hint):
		if v.hinting || len(v.moves) == 0 {
			return nil
		}
		v.forgetHint()
		ctx, stop := context.WithCancel(context.Background())
		v.hinting, v.stop = true, stop
		return hint(ctx, hintMsg{st: v.st, gen: v.hintGen}, v.impl, v.faults, v.schedule())
	case key.Matches(msg, k.MoveUp) && len(v.moves) > 0:
		v.cursor = (v.cursor - 1 + len(v.moves)) % len(v.moves)
	case key.Matches(msg, k.MoveDown) && len(v.moves) > 0:
		v.cursor = (v.cursor + 1) % len(v.moves)
	case key.Matches(msg, k.Make) && len(v.moves) > 0:
		v.do(v.cursor)
	case key.Matches(msg, k.Choose):
		rows := v.listRows(w, h)
		for i := range v.moves {
			if moveKey(i) == msg.String() && v.visible(i, rows) {
				v.do(i)
				break
			}
		}
	}
	return nil
}

// do makes move i of the list.
func (v *sandboxView) do(i int) {
	if v.st == nil {
		return
	}
	v.forgetHint()
	if err := v.st.Do(v.moves[i].ID); err != nil {
		v.err = err
	}
	v.refresh()
}

// forgetHint drops the hint: it cancels a running search, and its answer,
// when it comes, is for a state the sandbox has left. Every change of
// state calls it.
func (v *sandboxView) forgetHint() {
	if v.stop != nil {
		v.stop()
		v.stop = nil
	}
	v.hintGen++
	v.hint, v.hinting, v.hintMove = "", false, ""
}

// hint asks the explorer for a shortest way from here to a broken invariant;
// the answer comes in id.
func hint(ctx context.Context, id hintMsg, impl lockimpl.Info, faults int, prefix []string) tea.Cmd {
	return func() tea.Msg {
		res, err := explore.Search(ctx, impl, explore.Options{
			Faults: faultSets[faults], Prefix: prefix, Depth: 16, Timeout: 10 * time.Second, First: true})
		if ctx.Err() != nil {
			return id // cancelled: the sandbox has moved on
		}
		if err != nil || len(res.Found) == 0 {
			id.text = sim.Text{
				EN: fmt.Sprintf("no invariant breaks within %d more moves (%d states searched)", res.Depth, res.States),
				ZH: fmt.Sprintf("再走 %d 步以内没有不变量会被破坏（搜索了 %d 个状态）", res.Depth, res.States)}
			return id
		}
		f := res.Found[0]
		for _, g := range res.Found {
			if g.Moves < f.Moves {
				f = g
			}
		}
		next := f.Trace.Schedule.Moves[len(prefix)]
		id.move, id.text = next, sim.Text{
			EN: fmt.Sprintf("%s breaks in %d more moves; next: %s", f.Invariant, f.Moves-len(prefix), next),
			ZH: fmt.Sprintf("再走 %d 步可破坏 %s；下一步：%s", f.Moves-len(prefix), f.Invariant, next)}
		return id
	}
}

// arrived takes the answer of the running search (a stale one is dropped).
func (v *sandboxView) arrived(msg hintMsg, lang string) {
	if msg.st != v.st || msg.gen != v.hintGen || !v.hinting {
		return
	}
	v.stop() // the search is over; this frees its context
	v.hinting, v.stop = false, nil
	v.hint = msg.text.In(lang)
	v.hintMove = msg.move
	// The cursor goes to the hinted move: it is on screen, and enter
	// makes it.
	for i, m := range v.moves {
		if m.ID == msg.move {
			v.cursor = i
		}
	}
}

// player is a player over the sandbox's trace, at its last event, for
// drawing.
func (v sandboxView) player() playerView {
	return playerView{scenario: scenarios.Scenario{ID: "sandbox"}, impl: v.impl.Name, tr: v.tr,
		step: max(len(v.tr.Events)-1, 0)}
}

// sandboxHelp is the key map as the sandbox shows it.
type sandboxHelp struct{ k KeyMap }

func (h sandboxHelp) ShortHelp() []key.Binding {
	k := h.k
	// ↑/↓ and enter are told on the line above the moves.
	return []key.Binding{k.Choose, k.Undo, k.Hint, k.Faults, k.Help, k.Back, k.Quit}
}

func (h sandboxHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{{k.Choose, k.MoveUp, k.Make}, {k.Undo, k.Reset, k.Hint, k.Faults}, {k.Lang, k.Back, k.Help, k.Quit}}
}
