package tui

import "github.com/lockstep-sim/lockstep/scenarios/sim"

// LaneCells is what each lane of the player's timeline shows at event i of
// tr, in lang, keyed by lane (a client, a server, "stock"), as the TUI draws
// it. The player page (package web) draws the same, and its browser test
// checks it against this.
func LaneCells(tr *sim.Trace, i int, lang string) map[string]string {
	return laneCells(tr, i, lang)
}
