package tui

import (
	"strings"
	"testing"
)

// Issue #37 item 13: the note after w names the command the user runs
// lockstep with (Options.Command, which main sets from how it was
// started), "lockstep" when none is given. Before, it said "lockstep
// --trace FILE" to someone who had typed go run . and has no lockstep.
func TestSavedTraceNamesTheCommand(t *testing.T) {
	home := "/home/teacher"
	t.Setenv("HOME", home)
	path := home + "/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json"
	for _, tc := range []struct{ command, en, zh string }{
		{"", "saved: lockstep --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json replays it",
			"已保存：lockstep --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json 可以重放"},
		{"go run .", "saved: go run . --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json replays it",
			"已保存：go run . --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json 可以重放"},
		{"./bin/lockstep", "saved: ./bin/lockstep --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json replays it",
			"已保存：./bin/lockstep --trace ~/.local/state/lockstep/sandbox-set-nx-ex-0-moves.json 可以重放"},
	} {
		m := newTest(t, Options{Impl: "set-nx-ex", Command: tc.command}, 80, 24)
		m, _ = press(m, "x")
		m = send(m, savedMsg{path: path})
		if got := m.sandbox.note; got.EN != tc.en || got.ZH != tc.zh {
			t.Errorf("Command %q: the note is\n %q\n %q", tc.command, got.EN, got.ZH)
		}
		if flat := strings.Join(strings.Fields(m.View()), " "); !strings.Contains(flat, tc.en) {
			t.Errorf("Command %q: the view lacks %q:\n%s", tc.command, tc.en, m.View())
		}
		m.sandbox.close()
	}
}
