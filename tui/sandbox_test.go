package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// choose presses the key of the sandbox move with id, which must be on
// screen.
func choose(t *testing.T, m Model, ids ...string) Model {
	t.Helper()
	for _, id := range ids {
		i := slices.IndexFunc(m.sandbox.moves, func(mv sim.Move) bool { return mv.ID == id })
		if i < 0 || !m.sandbox.visible(i, m.sandbox.listRows(m.lang, m.width, m.height)) {
			t.Fatalf("move %q not offered on screen (%d): %+v\n%s", id, i, m.sandbox.moves, m.View())
		}
		m, _ = press(m, moveKey(i))
	}
	return m
}

// The GET-then-DEL race, as a student schedules it by hand.
var getThenDelMoves = []string{"A", "A", "B", "time", "A", "A", "A", "time", "B", "A"}

func sandbox(t *testing.T, impl string, w, h int) Model {
	t.Helper()
	m := newTest(t, Options{Impl: impl}, w, h)
	m, _ = press(m, "x")
	if m.screen != screenSandbox || m.sandbox.impl.Name != impl {
		t.Fatalf("x: screen %s, impl %s", m.screen, m.sandbox.impl.Name)
	}
	t.Cleanup(m.sandbox.close)
	return m
}

func TestSandboxViews(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	golden(t, "sandbox-80x24", m.View())
	m = choose(t, m, getThenDelMoves...)
	golden(t, "sandbox-violation-80x24", m.View())
	m, _ = press(m, "L")
	golden(t, "sandbox-violation-zh-80x24", m.View())
	for _, v := range []string{m.View()} {
		for i, line := range strings.Split(v, "\n") {
			if n := ansi.StringWidth(line); n > 80 {
				t.Errorf("line %d has %d columns", i, n)
			}
		}
		if n := strings.Count(v, "\n") + 1; n != 24 {
			t.Errorf("%d lines, want 24", n)
		}
	}
}

func TestSandboxKeys(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	if got := len(m.sandbox.moves); got != 2 {
		t.Fatalf("%d moves at the start, want 2 (A and B start)", got)
	}
	m = choose(t, m, getThenDelMoves...)
	if got := m.sandbox.st.Broken(); len(got) != 1 || got[0] != invariant.Ownership {
		t.Fatalf("broken %v after the race, want ownership", got)
	}
	if len(m.sandbox.moves) != 0 || !strings.Contains(m.View(), "a counterexample") {
		t.Error("after the violation the sandbox still offers moves or does not say so")
	}
	// Undo steps back one move: nothing broken, moves offered again.
	m, _ = press(m, "u")
	if got := len(m.sandbox.schedule()); got != len(getThenDelMoves)-1 {
		t.Errorf("schedule after undo has %d moves, want %d", got, len(getThenDelMoves)-1)
	}
	if len(m.sandbox.st.Broken()) != 0 || len(m.sandbox.moves) == 0 {
		t.Errorf("after undo: broken %v, %d moves", m.sandbox.st.Broken(), len(m.sandbox.moves))
	}
	// A digit with no move behind it does nothing.
	before := len(m.sandbox.schedule())
	m, _ = press(m, "9")
	if len(m.sandbox.schedule()) != before {
		t.Error("9 made a move that is not offered")
	}
	// f cycles the fault sets (TestSandboxFaultsKeepMoves has what it
	// keeps); pause appears as a move.
	m, _ = press(m, "f", "r")
	if m.sandbox.faults != 1 || len(m.sandbox.schedule()) != 0 {
		t.Fatalf("f, r: fault set %d, %d moves made", m.sandbox.faults, len(m.sandbox.schedule()))
	}
	m = choose(t, m, "A", "A")
	if !strings.Contains(m.View(), "A's process pauses (GC)") {
		t.Errorf("with pauses allowed, no pause move:\n%s", m.View())
	}
	m, _ = press(m, "r")
	if len(m.sandbox.schedule()) != 0 {
		t.Error("r did not start again")
	}
	// The hint: the explorer's next move of a shortest counterexample.
	m = choose(t, m, "A")
	m, cmd := press(m, "s")
	if cmd == nil || !m.sandbox.hinting {
		t.Fatal("s started no search")
	}
	m = send(m, cmd())
	if m.sandbox.hinting || m.sandbox.hintMove == "" || !strings.Contains(m.View(), "← hint") {
		t.Errorf("hint: %q, move %q\n%s", m.sandbox.hint, m.sandbox.hintMove, m.View())
	}
	// A stale hint (for another schedule) is dropped.
	m = send(m, hintMsg{st: m.sandbox.st, gen: m.sandbox.hintGen - 1, move: "B", text: text.Text{EN: "stale", ZH: "stale"}})
	if strings.Contains(m.View(), "stale") {
		t.Error("a stale hint was shown")
	}
	m, _ = press(m, "esc")
	if m.screen != screenStart {
		t.Errorf("esc: screen %s", m.screen)
	}
}

// A trace from a file (an explorer's counterexample) opens in the player;
// there is nothing to switch to or compare with.
func TestPlayerOnATraceFile(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	m = choose(t, m, getThenDelMoves...)
	tr := m.sandbox.st.Trace()
	p := newTest(t, Options{Trace: tr}, 80, 24)
	if p.screen != screenPlayer || !p.player.ready() {
		t.Fatalf("screen %s, ready %v", p.screen, p.player.ready())
	}
	p, _ = press(p, "v")
	if !strings.Contains(p.View(), "✗ A deleted the lock that B wrote") {
		t.Errorf("v does not reach the violation:\n%s", p.View())
	}
	p, cmd := press(p, "i", "c")
	if cmd != nil || p.player.compare || p.player.impl != "uuid-get-del" {
		t.Errorf("i/c on a trace file: compare %v, impl %s", p.player.compare, p.player.impl)
	}
}

// Letting time pass shows at once: the header's time, the lease in the
// panel and a row in the timeline all say t=5s (issue #15, sandbox item 3:
// the panel kept the lease at 30.0s and the timeline had no row).
func TestSandboxTimePasses(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	m = choose(t, m, "A", "A", "time")
	v := m.View()
	for _, want := range []string{"t=5.0s", "lock=A#1 █████░ 25.0s", "5.0 » Time passes to t=5s."} {
		if !strings.Contains(v, want) {
			t.Errorf("after A, A, time: no %q on screen:\n%s", want, v)
		}
	}
}

// A move made while the hint is searching cancels the search: the status
// line no longer says it is searching, the answer for the old state is
// dropped, and s asks again (issue #15, sandbox item 1: "searching…" stayed
// for ever and s did nothing more).
func TestSandboxMoveCancelsHint(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	defer func() { m.sandbox.close() }() // the world of the last reset
	m, _ = press(m, "1")
	m, stale := press(m, "s")
	if stale == nil || !m.sandbox.hinting {
		t.Fatal("s started no search")
	}
	m, _ = press(m, "2")
	if m.sandbox.hinting || strings.Contains(m.View(), "searching") {
		t.Errorf("a move did not stop the search:\n%s", m.View())
	}
	m = send(m, stale())
	if m.sandbox.hinting || m.sandbox.hintMove != "" || strings.Contains(m.View(), "← hint") {
		t.Errorf("the answer for the state before the move was taken:\n%s", m.View())
	}
	m, cmd := press(m, "s")
	if cmd == nil || !m.sandbox.hinting {
		t.Fatal("s does nothing after a move cancelled the search")
	}
	m = send(m, cmd())
	if m.sandbox.hinting || m.sandbox.hintMove == "" || !strings.Contains(m.View(), "← hint") {
		t.Errorf("the second hint did not arrive:\n%s", m.View())
	}
	// Undo, start again and a new fault set cancel a search as a move does.
	for _, k := range []string{"u", "r", "f"} {
		m, _ = press(m, "1")
		m, stale = press(m, "s")
		m, _ = press(m, k)
		m = send(m, stale())
		if m.sandbox.hinting || m.sandbox.hintMove != "" {
			t.Errorf("%s while searching: hinting %v, hint %q", k, m.sandbox.hinting, m.sandbox.hintMove)
		}
	}
}

// Every move the world offers is listed when the terminal has the lines for
// it, each with its own key — digits, then letters — and a key makes only a
// move that is on screen. Where the lines run out, the list scrolls with
// the cursor (↑/↓, enter) and says how many moves are above and below
// (issue #15, sandbox item 2: five moves listed at 120×40, "6" made a move
// never shown, moves after the ninth out of reach).
func TestSandboxListsEveryMove(t *testing.T) {
	// redsync asks the three nodes from goroutines of its own: with every
	// fault and both clients acquiring, thirteen moves.
	m := sandbox(t, "redsync-redlock", 120, 40)
	defer func() { m.sandbox.close() }()
	m, _ = press(m, "f", "f", "f")
	m = choose(t, m, "A", "B")
	if n := len(m.sandbox.moves); n < 12 {
		t.Fatalf("%d moves, want a dozen or more: %+v", n, m.sandbox.moves)
	}
	v := m.View()
	fits(t, v, 120, 40)
	golden(t, "sandbox-every-move-120x40", v)
	for i, mv := range m.sandbox.moves {
		if want := fmt.Sprintf("%s  %s", moveKey(i), mv.Label.EN); !strings.Contains(v, want) {
			t.Errorf("move %d (%s) not listed as %q at 120×40:\n%s", i+1, mv.ID, want, v)
		}
	}
	if strings.Contains(v, "more") {
		t.Errorf("at 120×40 the list is cut:\n%s", v)
	}
	last := m.sandbox.moves[len(m.sandbox.moves)-1]
	m, _ = press(m, moveKey(len(m.sandbox.moves)-1))
	if s := m.sandbox.schedule(); s[len(s)-1] != last.ID {
		t.Errorf("the last move's key (%s) made %q, want %q", moveKey(len(m.sandbox.moves)-1), s[len(s)-1], last.ID)
	}
	m, _ = press(m, "u")

	// At 64×20 the list is cut: a hidden move's key does nothing, ↓ brings
	// it into view, enter makes the move under the cursor.
	m = send(m, tea.WindowSizeMsg{Width: 64, Height: 20})
	v = m.View()
	fits(t, v, 64, 20)
	if !strings.Contains(v, "more") {
		t.Fatalf("at 64×20 the list of %d moves is not cut:\n%s", len(m.sandbox.moves), v)
	}
	n := len(m.sandbox.moves)
	before := len(m.sandbox.schedule())
	m, _ = press(m, moveKey(n-1))
	if len(m.sandbox.schedule()) != before {
		t.Fatalf("the key of a move not on screen (%s) made it:\n%s", moveKey(n-1), v)
	}
	for i := range n - 1 {
		m, _ = press(m, "down")
		fits(t, m.View(), 64, 20)
		if i == 5 {
			golden(t, "sandbox-cut-64x20", m.View())
		}
	}
	if v := m.View(); m.sandbox.cursor != n-1 || !strings.Contains(v, "▶ "+moveKey(n-1)+"  "+last.Label.EN) {
		t.Fatalf("cursor %d after %d × ↓, the last move not under it:\n%s", m.sandbox.cursor, n-1, v)
	}
	m, _ = press(m, "enter")
	if s := m.sandbox.schedule(); len(s) != before+1 || s[len(s)-1] != last.ID {
		t.Errorf("enter made %v, want %s", s[before:], last.ID)
	}
}

// A move's key is no other key of the sandbox, nor of the whole TUI.
func TestMoveKeysAreFree(t *testing.T) {
	k := DefaultKeyMap()
	for _, c := range moveKeys {
		msg := keyMsg(string(c))
		for name, b := range map[string]key.Binding{"Undo": k.Undo, "Reset": k.Reset, "Hint": k.Hint, "Faults": k.Faults, "Save": k.Save,
			"MoveUp": k.MoveUp, "MoveDown": k.MoveDown, "Make": k.Make, "Lang": k.Lang, "Back": k.Back, "Help": k.Help, "Quit": k.Quit} {
			if key.Matches(msg, b) {
				t.Errorf("the move key %q is also %s", c, name)
			}
		}
		if !key.Matches(msg, k.Choose) {
			t.Errorf("the move key %q is not in KeyMap.Choose", c)
		}
	}
}

// The sandbox's help lists its keys and fits the terminal.
func TestSandboxHelp(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	m, _ = press(m, "?")
	v := m.View()
	fits(t, v, 80, 24)
	golden(t, "sandbox-help-80x24", v)
	m, _ = press(m, "L")
	v = m.View()
	fits(t, v, 80, 24)
	for _, want := range []string{"走选中的一步", "保存记录", "English/中文", "退出"} {
		if !strings.Contains(v, want) {
			t.Errorf("the Chinese help has no %q:\n%s", want, v)
		}
	}
}

// A new fault set keeps the moves made, as many as it allows, and says so;
// u undoes the change (issue #15, sandbox item 4: f threw every move away).
func TestSandboxFaultsKeepMoves(t *testing.T) {
	m := sandbox(t, "uuid-get-del", 80, 24)
	defer func() { m.sandbox.close() }()
	made := []string{"A", "B", "A"}
	m = choose(t, m, made...)
	m, _ = press(m, "f")
	if got := m.sandbox.schedule(); m.sandbox.faults != 1 || !slices.Equal(got, made) {
		t.Fatalf("f: fault set %d, moves %v; want 1 and %v", m.sandbox.faults, got, made)
	}
	if v := m.View(); !strings.Contains(v, "new faults: all 3 moves kept (u undoes)") {
		t.Errorf("f does not say it kept the moves:\n%s", v)
	}
	m, _ = press(m, "u")
	if got := m.sandbox.schedule(); m.sandbox.faults != 0 || !slices.Equal(got, made) {
		t.Fatalf("u after f: fault set %d, moves %v; want 0 and %v", m.sandbox.faults, got, made)
	}
	if v := m.View(); !strings.Contains(v, "faults back to expiry") || !strings.HasPrefix(v, "lockstep ─ sandbox ─ uuid-get-del ─ t=0.0s ─ move 3 ─ faults: expiry ") {
		t.Errorf("u after f does not say the faults are back:\n%s", v)
	}
	m, _ = press(m, "u")
	if got := m.sandbox.schedule(); !slices.Equal(got, made[:2]) {
		t.Errorf("a second u: moves %v, want %v", got, made[:2])
	}

	// A pause, then a fault set without pauses: the moves up to the pause
	// are kept, and u brings the pause back.
	m, _ = press(m, "f")
	made = []string{"A", "B", "pause A", "B"}
	m = choose(t, m, made[2:]...)
	m, _ = press(m, "f")
	if got := m.sandbox.schedule(); m.sandbox.faults != 2 || !slices.Equal(got, made[:2]) {
		t.Fatalf("f to crashes: fault set %d, moves %v; want 2 and %v", m.sandbox.faults, got, made[:2])
	}
	if v := m.View(); !strings.Contains(v, `new faults: kept 2 of 4 moves (u undoes); "pause A" is not a move now`) {
		t.Errorf("f does not say which moves it dropped:\n%s", v)
	}
	m, _ = press(m, "L")
	if v := m.View(); !strings.Contains(v, "故障已更改：保留了 4 步中的前 2 步（u 撤销）；现在没有“pause A”这一步") {
		t.Errorf("the note is not in Chinese:\n%s", v)
	}
	m, _ = press(m, "L", "u")
	if got := m.sandbox.schedule(); m.sandbox.faults != 1 || !slices.Equal(got, made) {
		t.Fatalf("u: fault set %d, moves %v; want 1 and %v", m.sandbox.faults, got, made)
	}
	// Under failover a replica catches up after 1 s: "time" is another move
	// there, and the moves stop before it.
	m, _ = press(m, "r")
	made = []string{"A", "A", "time"}
	m = choose(t, m, made...)
	m, _ = press(m, "f", "f")
	if got := m.sandbox.schedule(); m.sandbox.faults != 3 || !slices.Equal(got, made[:2]) {
		t.Fatalf("f to failover: fault set %d, moves %v; want 3 and %v", m.sandbox.faults, got, made[:2])
	}
	if v := m.View(); !strings.Contains(v, `new faults: kept 2 of 3 moves (u undoes); "time" is now: time passes to t=1s`) {
		t.Errorf("f does not say the time move changed:\n%s", v)
	}
	m, _ = press(m, "u")
	// r starts again, and u undoes that too.
	m, _ = press(m, "r")
	if len(m.sandbox.schedule()) != 0 {
		t.Fatal("r did not start again")
	}
	m, _ = press(m, "u")
	if got := m.sandbox.schedule(); !slices.Equal(got, made) {
		t.Errorf("u after r: moves %v, want %v", got, made)
	}
}

// w saves the schedule as a trace file in the user's state directory, not
// the working directory (a checkout it would litter: #28 item 19), says
// where, and never overwrites one; the file passes the checks lockstep
// --trace makes (it validates, and its schedule makes the same run again).
// Issue #15, sandbox item 5.
func TestSandboxSavesATrace(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("LOCKSTEP_SANDBOX_DIR", "")
	t.Chdir(work)
	dir := filepath.Join(home, ".local", "state", "lockstep")
	m := sandbox(t, "uuid-get-del", 80, 24)
	m = choose(t, m, getThenDelMoves...)
	m, cmd := press(m, "w")
	if cmd == nil {
		t.Fatal("w saves nothing")
	}
	m = send(m, cmd())
	path := filepath.Join(dir, "sandbox-uuid-get-del-10-moves.json")
	if shown := "~/.local/state/lockstep/sandbox-uuid-get-del-10-moves.json"; !strings.Contains(m.View(), shown) ||
		m.sandbox.note.EN != "saved: lockstep --trace "+shown+" replays it" {
		t.Errorf("w does not say where it wrote: %q\n%s", m.sandbox.note.EN, m.View())
	}
	if left, _ := os.ReadDir(work); len(left) > 0 {
		t.Errorf("w wrote in the working directory: %v", left)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr trace.Trace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(invariant.IDs()); err != nil {
		t.Fatalf("the saved trace is not valid: %v", err)
	}
	if tr.Schedule == nil || !slices.Equal(tr.Schedule.Moves, getThenDelMoves) || tr.Title.EN != "Sandbox: uuid-get-del, 10 moves" {
		t.Fatalf("saved schedule %+v, title %q", tr.Schedule, tr.Title.EN)
	}
	impl, _ := lockimpl.Lookup(tr.Impl)
	again, err := explore.Replay(context.Background(), impl, tr.Schedule)
	if err != nil {
		t.Fatalf("the saved schedule does not replay: %v", err)
	}
	if !slices.Equal(again.Broken(), tr.Broken()) || len(again.Events) != len(tr.Events) || !slices.Equal(tr.Broken(), []string{invariant.Ownership}) {
		t.Errorf("replayed: %v broken, %d events; saved: %v, %d", again.Broken(), len(again.Events), tr.Broken(), len(tr.Events))
	}
	// The player opens it as lockstep --trace does.
	p := newTest(t, Options{Trace: &tr}, 80, 24)
	p, _ = press(p, "v")
	if v := p.View(); !strings.Contains(v, "✗ A deleted the lock that B wrote") || !strings.Contains(v, "Sandbox: uuid-get-de") {
		t.Errorf("the player on the saved trace:\n%s", v)
	}

	// A second save takes the next free name.
	m, cmd = press(m, "w")
	m = send(m, cmd())
	if _, err := os.Stat(filepath.Join(dir, "sandbox-uuid-get-del-10-moves-2.json")); err != nil {
		t.Errorf("the second save: %v\n%s", err, m.View())
	}
	// In Chinese.
	m, _ = press(m, "L")
	if got, want := m.sandbox.note.In("zh"), "已保存：lockstep --trace ~/.local/state/lockstep/sandbox-uuid-get-del-10-moves-2.json 可以重放"; got != want ||
		!strings.Contains(m.View(), "已保存：") {
		t.Errorf("no Chinese: %q\n%s", got, m.View())
	}
	m, _ = press(m, "L")
	// $XDG_STATE_HOME is the state directory when it is set, and
	// LOCKSTEP_SANDBOX_DIR (relative to the working directory) says where
	// instead.
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	saved(t, m, filepath.Join(state, "lockstep", "sandbox-uuid-get-del-10-moves.json"))
	t.Setenv("LOCKSTEP_SANDBOX_DIR", "traces")
	saved(t, m, filepath.Join(work, "traces", "sandbox-uuid-get-del-10-moves.json"))
	// A directory it cannot make (under a file, which stops root too): the
	// error is on screen.
	t.Setenv("LOCKSTEP_SANDBOX_DIR", filepath.Join(path, "x"))
	m, cmd = press(m, "w")
	m = send(m, cmd())
	if v := m.View(); !strings.Contains(v, "could not save the trace") {
		t.Errorf("a failed save says nothing:\n%s", v)
	}
}

// saved presses w on m and checks that the trace went to path.
func saved(t *testing.T, m Model, path string) {
	t.Helper()
	m, cmd := press(m, "w")
	m = send(m, cmd())
	if _, err := os.Stat(path); err != nil || m.sandbox.note.EN != "saved: lockstep --trace "+path+" replays it" {
		t.Errorf("w: %v, %q; want it in %s", err, m.sandbox.note.EN, path)
	}
}

// At every size from the smallest, through a run with every fault, the
// sandbox fits the terminal and the cursor's move is on screen.
func TestSandboxFitsEverySize(t *testing.T) {
	for _, impl := range []string{"uuid-get-del", "fenced", "redlock", "redsync-redlock"} {
		for _, size := range [][2]int{{64, 20}, {80, 24}, {120, 40}} {
			m := sandbox(t, impl, size[0], size[1])
			m, _ = press(m, "f", "f", "f")
			for i := 0; i < 14 && len(m.sandbox.moves) > 0; i++ {
				// The last move but one: a fault, or time, or a client.
				for range max(len(m.sandbox.moves)-2, 0) {
					m, _ = press(m, "down")
				}
				v := m.View()
				fits(t, v, size[0], size[1])
				if n := strings.Count(v, "\n") + 1; n != size[1] {
					t.Errorf("%s at %dx%d after %v: %d lines", impl, size[0], size[1], m.sandbox.schedule(), n)
				}
				c := m.sandbox.cursor
				if !m.sandbox.visible(c, m.sandbox.listRows(m.lang, size[0], size[1])) ||
					!strings.Contains(v, "▶ "+moveKey(c)+"  ") {
					t.Errorf("%s at %dx%d after %v: the cursor's move %d is not on screen:\n%s",
						impl, size[0], size[1], m.sandbox.schedule(), c, v)
				}
				m, _ = press(m, "enter")
			}
			m.sandbox.close()
		}
	}
}
