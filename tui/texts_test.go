package tui

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/lockstep-sim/lockstep/text"
)

// The TUI's own fixed texts come in both languages: the keys' help, the
// beliefs in the client list, the legend, and the moves the sandbox offers
// along a whole schedule (docs/DESIGN: "a test fails when any user-facing
// text lacks Chinese").
func TestEveryTextInBothLanguages(t *testing.T) {
	missing := text.Missing("helpTexts", helpTexts)
	missing = append(missing, text.Missing("beliefs", beliefs)...)
	missing = append(missing, text.Missing("legend", legend)...)
	m := sandbox(t, "uuid-get-del", 80, 24)
	missing = append(missing, text.Missing("sandbox moves at the start", m.sandbox.moves)...)
	for i, id := range getThenDelMoves {
		m = choose(t, m, id)
		missing = append(missing, text.Missing("sandbox moves after move "+strconv.Itoa(i+1), m.sandbox.moves)...)
	}
	for _, s := range missing {
		t.Error(s)
	}

	// Every key's description has its Chinese: one found by its English.
	keys := reflect.ValueOf(DefaultKeyMap())
	for i := range keys.NumField() {
		desc := keys.Field(i).Interface().(key.Binding).Help().Desc
		if !slices.ContainsFunc(helpTexts, func(x text.Text) bool { return x.EN == desc }) {
			t.Errorf("KeyMap.%s: %q is not in helpTexts", keys.Type().Field(i).Name, desc)
		}
	}
}
