package tui

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// LaneCells is what each lane of the player's timeline shows at event i of
// tr, in lang, keyed by lane (a client, a server, "stock"), as the TUI draws
// it. The player page (package web) draws the same, and its browser test
// checks it against this.
func LaneCells(tr *trace.Trace, i int, lang string) map[string]string {
	return laneCells(tr, i, lang)
}

// AlignedRow is one row of compare mode: the event of each trace on it
// (-1 for none), and whether the two are identical.
type AlignedRow struct {
	L, R int
	Same bool
}

// Align is compare mode's rows for a beside b, as the TUI's player lines
// them up, and the first row where they differ (-1 if none); no rows (and
// -1) for two runs with too many events at the same instants to compare,
// which the TUI does not compare. The player page lines them up the same,
// and its browser test checks it against this.
func Align(a, b *trace.Trace) ([]AlignedRow, int) {
	rows, diverge, ok := align(a, b)
	if !ok {
		return nil, -1
	}
	out := make([]AlignedRow, len(rows))
	for i, p := range rows {
		out[i] = AlignedRow{L: p.l, R: p.r, Same: p.same}
	}
	return out, diverge
}
