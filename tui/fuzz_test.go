package tui

import (
	"cmp"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"
)

// fuzzTraces are the traces FuzzTUIUpdate opens the player on: the files in
// testdata/traces (the explorer's set-nx-ex counterexample; a small trace
// full of escape sequences), loaded as lockstep --trace loads them but for
// the replay, then every cell's trace.
var fuzzTraces = sync.OnceValues(func() ([]*trace.Trace, error) {
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, cmp.Or(err, os.ErrNotExist)
	}
	var out []*trace.Trace
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var tr trace.Trace
		if err := json.Unmarshal(b, &tr); err != nil {
			return nil, err
		}
		tr.Clean()
		if err := tr.Validate(invariant.IDs()); err != nil {
			return nil, err
		}
		out = append(out, &tr)
	}
	cells := slices.SortedFunc(maps.Keys(allTraces()), func(a, b cell) int {
		return cmp.Or(cmp.Compare(a.scenario, b.scenario), cmp.Compare(a.impl, b.impl))
	})
	for _, c := range cells {
		out = append(out, allTraces()[c])
	}
	return out, nil
})

// fuzzKeys are the keys FuzzTUIUpdate presses, one per input byte; the
// bytes past them resize the window, tick autoplay or type a rune.
var fuzzKeys = []string{"right", "left", "up", "down", "enter", "esc", "tab", "space",
	"g", "G", "home", "end", "v", "d", "i", "c", "+", "-", "?", "L", "x", "h", "u", "r",
	"1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "q", "ctrl+c", "\x1b", "\x07"}

// fuzzMsg turns an input byte into a message for the model.
func fuzzMsg(m Model, b byte) tea.Msg {
	switch {
	case int(b) < len(fuzzKeys):
		return keyMsg(fuzzKeys[b])
	case b >= 0xf0: // sizes from too small to large
		n := int(b & 0x0f)
		return tea.WindowSizeMsg{Width: 30 + n*10, Height: 10 + n*3}
	case b >= 0xe0:
		return tickMsg{m.player.gen}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune(b)}}
}

// FuzzTUIUpdate opens the player on a trace (which picks one of
// fuzzTraces), then sends it any sequence of keys, window sizes and autoplay
// ticks, up to 64: no Update or View panics, and no View has a control
// character other than newline (with the Ascii profile the TUI has no
// styling of its own, and a trace's escape sequences must not get through).
// Commands are not run: a trace switched to comes from the cache.
func FuzzTUIUpdate(f *testing.F) {
	if _, err := fuzzTraces(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, trace uint8, keys []byte) {
		traces, _ := fuzzTraces()
		m := newModel(Options{Trace: traces[int(trace)%len(traces)]}, maps.Clone(allTraces()))
		m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		defer func() { m.sandbox.close() }()
		for i, b := range keys[:min(len(keys), 64)] {
			m = send(m, fuzzMsg(m, b))
			v := m.View()
			for _, r := range v {
				if r != '\n' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
					t.Fatalf("after input %d (%#x) the view has %U:\n%q", i, b, r, v)
				}
			}
		}
	})
}
