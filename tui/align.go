package tui

import (
	"fmt"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// pair is one row of compare mode: an event of each trace, -1 for a gap.
// same says whether the two events are identical.
type pair struct {
	l, r int
	same bool
}

// slot is what makes two events "the same step" of the timeline in two
// traces: the same instant, actor and kind. Whether they are the same event
// is signature's question.
func slot(e trace.Event) string {
	return fmt.Sprintf("%d|%s|%s|%s", e.T, e.Kind, e.Actor, e.Server)
}

func signature(e trace.Event) string {
	return slot(e) + "|" + e.Text.EN
}

// maxAlignCells bounds the scores align keeps: 2²⁶ of them, 256 MiB, as
// the player page's MAX_CELLS. A lesson's instant holds a few hundred
// events (a try on each of nine servers for each of eight clients, its say
// lines): the widest lesson's two runs need 5.5 million.
const maxAlignCells = 1 << 26

// align lines two traces up along their longest common subsequence of
// steps, so that what both runs did at the same moment sits on one row —
// identical or not — and what only one did stands alone. Among equally long
// alignments it prefers identical events, and between equally good moves
// time order. It returns the rows and the first row where the traces
// differ, -1 if they never do; ok is false, and there are no rows, when
// the two runs have too many events at the same instants to be aligned
// within maxAlignCells.
//
// Two events pair only in the same slot, so at the same instant, and the
// traces are in time order (Validate makes sure of a file's): the best
// alignment is the best one of each instant's events, a table for each
// instant both traces have (Σ nₜ × mₜ scores) instead of one for every
// pair of events (n × m: 12 GB for the widest lesson's two runs).
func align(a, b *trace.Trace) (rows []pair, diverge int, ok bool) {
	s, ok := newScores(a, b)
	if !ok {
		return nil, -1, false
	}
	n, m := len(a.Events), len(b.Events)
	diverge = -1
	i, j := 0, 0
	for i < n || j < m {
		var p pair
		switch {
		case i < n && j < m && s.fa[i] == s.fb[j] && s.at(i, j) == s.at(i+1, j+1)+2:
			p = pair{i, j, true}
			i, j = i+1, j+1
		case i < n && j < m && s.ka[i] == s.kb[j] && s.at(i, j) == s.at(i+1, j+1)+1:
			p = pair{i, j, false}
			i, j = i+1, j+1
		default:
			// Step past an event only one trace has, keeping the best
			// score; between equally good moves, time order.
			skipA := j >= m
			if i < n && j < m {
				down, right := s.at(i+1, j), s.at(i, j+1)
				skipA = down > right || down == right && a.Events[i].T <= b.Events[j].T
			}
			if skipA {
				p = pair{i, -1, false}
				i++
			} else {
				p = pair{-1, j, false}
				j++
			}
		}
		rows = append(rows, p)
		if !p.same && diverge < 0 {
			diverge = len(rows) - 1
		}
	}
	return rows, diverge, true
}
