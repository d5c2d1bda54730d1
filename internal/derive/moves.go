package derive

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// MovesHeading is the section of docs/explore.md whose table lists the
// explorer's moves.
const MovesHeading = "## The moves"

// MovesTable rewrites the rows of the faults' moves in docs/explore.md's
// table of moves from the faults' records (sim.FaultInfos), one row per
// fault with moves of its own, in --faults' order; the rows of the moves
// that are no fault's (a client's step, a flight, a watchdog, time) stay
// where they are, before them.
func MovesTable(doc []byte) ([]byte, error) {
	s := string(doc)
	from, to, err := section(s, MovesHeading)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(s[from:to], "\n")
	first, last := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "| ") && isFaultRow(l) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("docs/explore.md, %q: no row of a fault's moves", MovesHeading)
	}
	for _, l := range lines[first : last+1] {
		if !isFaultRow(l) {
			return nil, fmt.Errorf("docs/explore.md, %q: a row among the faults' that is no fault's: %s", MovesHeading, strings.TrimSpace(l))
		}
	}
	var rows strings.Builder
	for _, f := range sim.FaultInfos() {
		if f.Moves == "" {
			continue
		}
		ids := strings.Split(f.Moves, ", ")
		fmt.Fprintf(&rows, "| `%s` | %s (`--faults %s`)%s |\n", strings.Join(ids, "`, `"), f.Doc.EN, f.Fault, oldMoves(f, ids))
	}
	out := strings.Join(lines[:first], "") + rows.String() + strings.Join(lines[last+1:], "")
	return []byte(s[:from] + out + s[to:]), nil
}

// oldMoves says which of a fault's moves went by another name once, as a
// schedule saved then may still give it: "; `stop redis-N` is its old
// name, and still replays".
func oldMoves(f sim.FaultInfo, ids []string) string {
	var out []string
	for _, old := range slices.Sorted(maps.Keys(f.OldMoves)) {
		for _, id := range ids {
			if verb, who, _ := strings.Cut(id, " "); verb == string(f.OldMoves[old]) {
				out = append(out, fmt.Sprintf("; `%s` is its old name, and still replays", strings.TrimSpace(old+" "+who)))
			}
		}
	}
	return strings.Join(out, "")
}

// isFaultRow says whether a table row is a fault's: it names its fault's
// --faults flag.
func isFaultRow(line string) bool {
	return strings.Contains(line, "(`--faults ")
}
