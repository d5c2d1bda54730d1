package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"lockstep/lockimpl"
	"lockstep/scenarios"
	"lockstep/scenarios/explore"
	"lockstep/scenarios/sim"
	"lockstep/text"
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
	v.moves = nil
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

// key handles a key; it may start a hint search.
func (v *sandboxView) key(msg tea.KeyMsg, k KeyMap) tea.Cmd {
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
	case len(msg.String()) == 1 && msg.String() >= "1" && msg.String() <= "9":
		i := int(msg.String()[0] - '1')
		if i < len(v.moves) && v.st != nil {
			v.forgetHint()
			if err := v.st.Do(v.moves[i].ID); err != nil {
				v.err = err
			}
			v.refresh()
		}
	}
	return nil
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
}

func (v sandboxView) view(st Styles, lang string, w, h int, hm help.Model, k KeyMap) string {
	if v.err != nil {
		return st.Bad.Render("lockstep: "+v.err.Error()) + "\n\n" + helpLine(hm, sandboxHelp{k}.ShortHelp(), w)
	}
	faults := make([]string, 0, 5)
	for _, f := range faultSets[v.faults] {
		faults = append(faults, string(f))
	}
	head := fmt.Sprintf("lockstep ─ %s ─ %s ─ %s: %s ─ t=%s ─ %s %d",
		text.New("sandbox", "沙盒").In(lang), v.impl.Name, text.New("faults", "故障").In(lang), strings.Join(faults, ","),
		secs(v.st.Now()), text.New("move", "步数").In(lang), len(v.schedule()))
	// The moves: as many as fit in six lines.
	var moves []string
	broken := v.st.Broken()
	switch {
	case len(broken) > 0:
		var zh []string
		for _, b := range broken {
			zh = append(zh, sim.InvariantName(b).ZH)
		}
		moves = append(moves, st.Bad.Render(fit(text.New(
			fmt.Sprintf("✗ %s broke after %d moves: a counterexample. u undoes, r starts again.", strings.Join(broken, ", "), len(v.schedule())),
			fmt.Sprintf("✗ %s在第 %d 步被破坏：找到反例。u 撤销，r 重来。", strings.Join(zh, "、"), len(v.schedule()))).In(lang), w)))
	case len(v.moves) == 0:
		moves = append(moves, st.Dim.Render(fit(text.New(
			"no move left: this schedule keeps every invariant. u undoes, r starts again.",
			"没有可走的步了：这条调度下所有不变量都成立。u 撤销，r 重来。").In(lang), w)))
	default:
		moves = append(moves, st.Header.Render(text.New("Your move:", "下一步：").In(lang)))
		for i, m := range v.moves {
			if i == 9 || len(moves) == 6 {
				moves = append(moves, st.Dim.Render(text.Newf("  … %d more", "  … 还有 %d 个", len(v.moves)-i).In(lang)))
				break
			}
			line := fmt.Sprintf(" %d  %s", i+1, m.Label.In(lang))
			if m.ID == v.hintMove {
				line = st.Selected.Render(fit(line+"  ← "+text.New("hint", "提示").In(lang), w))
			} else {
				line = fit(line, w)
			}
			moves = append(moves, line)
		}
	}
	status := v.hint
	if v.hinting {
		status = text.New("searching for a counterexample from here…", "正在从这里搜索反例…").In(lang)
	}
	bottom := []string{
		st.Rule.Render(strings.Repeat("─", w)),
		v.player().band(st, lang, w, v.tr, len(v.tr.Events)-1),
		st.Rule.Render(strings.Repeat("─", w)),
	}
	bottom = append(bottom, moves...)
	bottom = append(bottom, st.Warn.Render(fit(status, w)), helpLine(hm, sandboxHelp{k}.ShortHelp(), w))
	rows := h - 1 - len(strings.Split(strings.Join(bottom, "\n"), "\n"))
	top := []string{st.Title.Render(fit(head, w))}
	top = append(top, v.player().timeline(st, lang, w, max(rows, 2))...)
	return strings.Join(append(top, bottom...), "\n")
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
	return []key.Binding{k.Choose, k.Undo, k.Hint, k.Faults, k.Back, k.Help, k.Quit}
}

func (h sandboxHelp) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{{k.Choose, k.Undo, k.Reset}, {k.Hint, k.Faults}, {k.Lang, k.Back, k.Help, k.Quit}}
}
