package sim

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// A fault, its moves and their IDs go by one name: each of a fault's move
// IDs starts with its kind, and the moves its record names for a reader
// (FaultInfo.Moves, the explorer's table) are its kinds, in order. An old
// name of a move is no move's name now, and reads as the move it was.
func TestMovesGoByTheirKinds(t *testing.T) {
	for _, f := range faults {
		var verbs []MoveKind
		if f.Moves != "" {
			for m := range strings.SplitSeq(f.Moves, ", ") {
				verb, _, _ := strings.Cut(m, " ")
				verbs = append(verbs, MoveKind(verb))
			}
		}
		if !slices.Equal(verbs, f.kinds) {
			t.Errorf("%s: its moves are %q, its kinds %q", f.Fault, f.Moves, f.kinds)
		}
		for _, old := range slices.Sorted(maps.Keys(f.OldMoves)) {
			kind := f.OldMoves[old]
			if !slices.Contains(f.kinds, kind) {
				t.Errorf("%s: the old name %q is of %q, none of its kinds %q", f.Fault, old, kind, f.kinds)
			}
			for _, g := range faults {
				if slices.Contains(g.kinds, MoveKind(old)) {
					t.Errorf("%s: the old name %q is %s's move now", f.Fault, old, g.Fault)
				}
			}
		}
	}
	for id, want := range map[string]string{
		"stop redis-2":            "delayed-restart redis-2",
		"delayed-restart redis-2": "delayed-restart redis-2",
		"restart redis-2":         "restart redis-2",
		"A":                       "A",
		"time":                    "time",
		"pause A":                 "pause A",
	} {
		if got := moveNow(id); got != want {
			t.Errorf("moveNow(%q) = %q, want %q", id, got, want)
		}
	}
}
