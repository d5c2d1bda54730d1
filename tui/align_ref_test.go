package tui

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// alignOneTable is compare mode's alignment as it was before it went one
// instant at a time (#37, item 3): one table of scores for every pair of
// events, n × m, 12 GB for the widest lesson's two runs. The tests keep it
// as the reference that align must agree with, row for row.
func alignOneTable(a, b *trace.Trace) ([]pair, int) {
	n, m := len(a.Events), len(b.Events)
	ka, kb := make([]string, n), make([]string, m)
	fa, fb := make([]string, n), make([]string, m)
	for i, e := range a.Events {
		ka[i], fa[i] = slot(e), signature(e)
	}
	for j, e := range b.Events {
		kb[j], fb[j] = slot(e), signature(e)
	}
	// score[i][j] is the best alignment of a[i:] and b[j:]: two points for
	// an identical pair, one for a pair in the same slot.
	score := make([][]int, n+1)
	for i := range score {
		score[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			best := max(score[i+1][j], score[i][j+1])
			switch {
			case fa[i] == fb[j]:
				best = max(best, score[i+1][j+1]+2)
			case ka[i] == kb[j]:
				best = max(best, score[i+1][j+1]+1)
			}
			score[i][j] = best
		}
	}
	var rows []pair
	diverge := -1
	i, j := 0, 0
	for i < n || j < m {
		var p pair
		switch {
		case i < n && j < m && fa[i] == fb[j] && score[i][j] == score[i+1][j+1]+2:
			p = pair{i, j, true}
			i, j = i+1, j+1
		case i < n && j < m && ka[i] == kb[j] && score[i][j] == score[i+1][j+1]+1:
			p = pair{i, j, false}
			i, j = i+1, j+1
		default:
			skipA := j >= m
			if i < n && j < m {
				skipA = score[i+1][j] > score[i][j+1] ||
					score[i+1][j] == score[i][j+1] && a.Events[i].T <= b.Events[j].T
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
	return rows, diverge
}
