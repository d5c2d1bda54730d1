package tui

import (
	"cmp"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// scores is the best alignment of a's events from i on with b's from j on,
// at(i, j): two points for an identical pair, one for a pair in the same
// slot. Slots and signatures are numbered (ka, kb, fa, fb), so that the
// tables compare numbers.
type scores struct {
	a, b           *trace.Trace
	ka, kb, fa, fb []int32
	shared         []instant             // the instants both traces have, in time order
	index          map[time.Duration]int // an instant's place in shared
}

// instant is one virtual time's events in each trace, a[a0:a1] and
// b[b0:b1], and the table of their alignments: cells[(i-a0)*w + j-b0] is
// the best alignment of a[i:a1] with b[j:b1] (w = b1-b0+1, the last row
// and column 0). later is the sum of the best alignments of the instants
// after it.
type instant struct {
	t              time.Duration
	a0, a1, b0, b1 int
	w              int
	cells          []int32
	later          int
}

// newScores fills a table for each instant both traces have, from the last
// one back; ok is false, and nothing is filled, past maxAlignCells.
func newScores(a, b *trace.Trace) (*scores, bool) {
	s := &scores{a: a, b: b, index: map[time.Duration]int{}}
	slots, sigs := map[string]int32{}, map[string]int32{}
	s.ka, s.fa = numbered(a, slots, sigs)
	s.kb, s.fb = numbered(b, slots, sigs)
	s.shared = sharedInstants(a, b)
	cells := 0
	for _, x := range s.shared {
		cells += (x.a1 - x.a0 + 1) * (x.b1 - x.b0 + 1)
	}
	if cells > maxAlignCells {
		return nil, false
	}
	all := make([]int32, cells)
	later := 0
	for k := len(s.shared) - 1; k >= 0; k-- {
		x := &s.shared[k]
		x.w = x.b1 - x.b0 + 1
		x.cells, all = all[:(x.a1-x.a0+1)*x.w], all[(x.a1-x.a0+1)*x.w:]
		s.fill(x)
		x.later = later
		later += int(x.cells[0])
		s.index[x.t] = k
	}
	return s, true
}

// fill is one instant's table, the one table's recurrence on its events.
func (s *scores) fill(x *instant) {
	w, c := x.w, x.cells
	for i := x.a1 - 1; i >= x.a0; i-- {
		for j := x.b1 - 1; j >= x.b0; j-- {
			at := (i-x.a0)*w + j - x.b0
			best := max(c[at+w], c[at+1])
			switch {
			case s.fa[i] == s.fb[j]:
				best = max(best, c[at+w+1]+2)
			case s.ka[i] == s.kb[j]:
				best = max(best, c[at+w+1]+1)
			}
			c[at] = best
		}
	}
}

// at is the best alignment of a[i:] with b[j:]: the instants from the later
// of the two events' on, that one from i and j on (or its start, for the
// trace whose event is earlier), the ones after it whole.
func (s *scores) at(i, j int) int {
	if i >= len(s.a.Events) || j >= len(s.b.Events) {
		return 0
	}
	t := max(s.a.Events[i].T, s.b.Events[j].T)
	k, ok := s.index[t]
	if !ok {
		// Only one trace has t: the shared instants after it, whole.
		k, _ = slices.BinarySearchFunc(s.shared, t, func(x instant, t time.Duration) int { return cmp.Compare(x.t, t) })
		if k == len(s.shared) {
			return 0
		}
		return s.shared[k].later + int(s.shared[k].cells[0])
	}
	x := &s.shared[k]
	i, j = max(i, x.a0), max(j, x.b0)
	return x.later + int(x.cells[(i-x.a0)*x.w+j-x.b0])
}

// numbered is each event's slot and signature as a number, the same number
// for the same string in both traces.
func numbered(tr *trace.Trace, slots, sigs map[string]int32) (k, f []int32) {
	k, f = make([]int32, len(tr.Events)), make([]int32, len(tr.Events))
	id := func(ids map[string]int32, s string) int32 {
		n, ok := ids[s]
		if !ok {
			n = int32(len(ids))
			ids[s] = n
		}
		return n
	}
	for i, e := range tr.Events {
		k[i], f[i] = id(slots, slot(e)), id(sigs, signature(e))
	}
	return k, f
}

// sharedInstants is the instants both traces have events at, each with its
// events in each: runs of equal T, as the traces are in time order.
func sharedInstants(a, b *trace.Trace) []instant {
	var out []instant
	i, j := 0, 0
	for i < len(a.Events) && j < len(b.Events) {
		ta, tb := a.Events[i].T, b.Events[j].T
		switch {
		case ta < tb:
			i = runEnd(a, i)
		case tb < ta:
			j = runEnd(b, j)
		default:
			x := instant{t: ta, a0: i, a1: runEnd(a, i), b0: j, b1: runEnd(b, j)}
			out = append(out, x)
			i, j = x.a1, x.b1
		}
	}
	return out
}

// runEnd is the end of the run of events at tr.Events[i]'s instant.
func runEnd(tr *trace.Trace, i int) int {
	t := tr.Events[i].T
	for i < len(tr.Events) && tr.Events[i].T == t {
		i++
	}
	return i
}
