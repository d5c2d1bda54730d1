package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// faultSets are the fault sets the sandbox offers, in the order f cycles
// through them.
var faultSets = [][]trace.Fault{
	{sim.FaultExpiry},
	{sim.FaultExpiry, sim.FaultPause},
	{sim.FaultExpiry, sim.FaultCrash},
	sim.Faults, // every fault
}

// sandboxView is the sandbox: the student is the scheduler. It lists the
// moves the world allows — a client's next command, time passing, a fault —
// and makes the one chosen, until an invariant breaks.
type sandboxView struct {
	impl   lockimpl.Info
	faults int // index into faultSets
	st     *sim.Stepper
	tr     *trace.Trace
	moves  []sim.Move // the moves offered
	made   []sim.Move // the moves made, as they were offered
	cursor int        // the move enter makes
	err    error

	hint     text.Text // the suggested move, or why there is none
	hinting  bool
	hintMove string
	// hintGen numbers the searches: every change of state moves it on, so
	// that an answer for a state the sandbox has left is dropped. stop
	// cancels the running search.
	hintGen int
	stop    context.CancelFunc

	// history is the states before each change, for u: a move, a new
	// fault set, starting again.
	history []sandboxState
	// note says what the last change did when that is not plain to see
	// (which moves a new fault set kept).
	note text.Text
	// command is how the user runs lockstep, for the note after a save.
	command string
}

// sandboxState is where the sandbox stood: the fault set and the moves made.
type sandboxState struct {
	faults int
	made   []sim.Move
}

// hintMsg brings the explorer's suggestion for the search numbered gen in
// the world st (a sandbox opened again numbers from the start).
type hintMsg struct {
	st   *sim.Stepper
	gen  int
	move string
	text text.Text
}

func newSandbox(impl lockimpl.Info, faults int, command string) sandboxView {
	v := sandboxView{impl: impl, faults: faults, command: command}
	v.reset(nil)
	return v
}

// reset builds the world again under the current fault set and makes the
// moves made in it again, as many as it can. It stops before a move the
// world does not offer (one of another fault set) or offers with another
// label: under failover a replica catches up after 1 s, so "time" goes to
// t=1s instead of t=5s — the same name, another move. It stops too once an
// invariant has broken (the sandbox offers nothing after that). It returns
// the first move it did not make, if any, and what the world offers under
// that name instead (nil if nothing).
func (v *sandboxView) reset(made []sim.Move) (stopped, instead *sim.Move) {
	v.close()
	v.err, v.note, v.made = nil, text.Text{}, nil
	st, err := explore.NewWorld(v.impl, trace.Schedule{Clients: 2, Attempts: 1, Faults: faultSets[v.faults]})
	if err != nil {
		v.err = err
		return nil, nil
	}
	v.st = st
	for i, m := range made {
		if len(st.Broken()) > 0 {
			break
		}
		offered := st.Moves()
		j := slices.IndexFunc(offered, func(o sim.Move) bool { return o.ID == m.ID })
		if j < 0 || offered[j].Label != m.Label {
			stopped = &made[i]
			if j >= 0 {
				instead = &offered[j]
			}
			break
		}
		if err := st.Do(m.ID); err != nil {
			v.err = err
			break
		}
		v.made = append(v.made, m)
	}
	v.refresh()
	return stopped, instead
}

// remember keeps the state before a change, for u.
func (v *sandboxView) remember() {
	v.history = append(v.history, sandboxState{v.faults, slices.Clone(v.made)})
}

// undo goes back to the state before the last change.
func (v *sandboxView) undo() {
	if len(v.history) == 0 {
		return
	}
	s := v.history[len(v.history)-1]
	v.history = v.history[:len(v.history)-1]
	changed := s.faults != v.faults
	v.faults = s.faults
	v.reset(s.made)
	if changed {
		v.note = text.Newf("faults back to %s", "故障改回 %s", faultNames(v.faults))
	}
}

// nextFaults moves on to the next fault set and keeps the moves made, as
// many as the new one allows.
func (v *sandboxView) nextFaults() {
	v.remember()
	made := v.made
	v.faults = (v.faults + 1) % len(faultSets)
	stopped, instead := v.reset(made)
	kept := len(v.made)
	switch {
	case v.err != nil || len(made) == 0:
	case kept == len(made):
		v.note = text.Newf("new faults: all %d moves kept (u undoes)", "故障已更改：已走的 %d 步全部保留（u 撤销）", kept)
	case instead != nil:
		v.note = text.Text{
			EN: fmt.Sprintf("new faults: kept %d of %d moves (u undoes); %q is now: %s", kept, len(made), stopped.ID, instead.Label.EN),
			ZH: fmt.Sprintf("故障已更改：保留了 %d 步中的前 %d 步（u 撤销）；“%s”现在是：%s", len(made), kept, stopped.ID, instead.Label.ZH),
		}
	case stopped != nil:
		v.note = text.Newf("new faults: kept %d of %d moves (u undoes); %q is not a move now",
			"故障已更改：保留了 %[2]d 步中的前 %[1]d 步（u 撤销）；现在没有“%[3]s”这一步", kept, len(made), stopped.ID)
	default: // an invariant broke earlier than before
		v.note = text.Newf("new faults: kept %d of %d moves (u undoes); an invariant breaks sooner",
			"故障已更改：保留了 %[2]d 步中的前 %[1]d 步（u 撤销）；不变量更早被破坏", kept, len(made))
	}
}

// faultNames is fault set i as the title shows it: expiry,pause.
func faultNames(i int) string {
	names := make([]string, len(faultSets[i]))
	for j, f := range faultSets[i] {
		names[j] = string(f)
	}
	return strings.Join(names, ",")
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

// key handles a key at screen size w×h in lang (a move's key works only
// while the move is on screen); it may start a hint search.
func (v *sandboxView) key(msg tea.KeyMsg, k KeyMap, lang string, w, h int) tea.Cmd {
	switch {
	case key.Matches(msg, k.Undo):
		v.undo()
	case key.Matches(msg, k.Reset):
		if len(v.made) > 0 {
			v.remember()
			v.reset(nil)
		}
	case key.Matches(msg, k.Faults):
		v.nextFaults()
	case key.Matches(msg, k.Save) && v.st != nil:
		return save(v.saveTrace())
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
		rows := v.listRows(lang, w, h)
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
	v.remember()
	v.forgetHint()
	v.note = text.Text{}
	if err := v.st.Do(v.moves[i].ID); err != nil {
		v.err = err
	}
	v.made = append(v.made, v.moves[i])
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
	v.hint, v.hinting, v.hintMove = text.Text{}, false, ""
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
			id.text = text.Text{
				EN: fmt.Sprintf("no invariant breaks within %s (%s searched)", text.Count(res.Depth, "more move", "more moves"), text.Count(res.States, "state", "states")),
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
		id.move, id.text = next, text.Text{
			EN: fmt.Sprintf("%s breaks in %s; next: %s", f.Invariant, text.Count(f.Moves-len(prefix), "more move", "more moves"), next),
			ZH: fmt.Sprintf("再走 %d 步可破坏%s；下一步：%s", f.Moves-len(prefix), invariant.NameOf(f.Invariant).ZH, next)}
		return id
	}
}

// arrived takes the answer of the running search (a stale one is dropped).
func (v *sandboxView) arrived(msg hintMsg) {
	if msg.st != v.st || msg.gen != v.hintGen || !v.hinting {
		return
	}
	v.stop() // the search is over; this frees its context
	v.hinting, v.stop = false, nil
	v.hint = msg.text
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
	// ↑/↓ and enter are told on the line above the moves. Where the line
	// is short, the keys before "? help" go first, from the right.
	return []key.Binding{k.Choose, k.Undo, k.Hint, k.Faults, k.Save, k.Back, k.Help, k.Quit}
}

func (h sandboxHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{{k.Choose, k.MoveUp, k.Make, k.Undo}, {k.Reset, k.Faults, k.Hint, k.Save}, {k.Lang, k.Back, k.Help, k.Quit}}
}
