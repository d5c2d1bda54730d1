package scenarios

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The cells that reconfigure the shared replica run one at a time, and from
// the start, beside the others: run after them they were the real-server
// check's last minutes, one cell after another on an otherwise idle pool.
func TestExclusiveCellsRunBesideThePool(t *testing.T) {
	const shared, exclusive = 12, 4
	var running, runningExclusive, maxExclusive atomic.Int32
	var overlapped atomic.Bool
	var mu sync.Mutex
	var order []int
	run := func(j int) {
		mu.Lock()
		order = append(order, j)
		mu.Unlock()
		if j >= shared {
			if n := runningExclusive.Add(1); n > maxExclusive.Load() {
				maxExclusive.Store(n)
			}
			defer runningExclusive.Add(-1)
			if running.Load() > 0 {
				overlapped.Store(true)
			}
		} else {
			running.Add(1)
			defer running.Add(-1)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var jobs []int
	for j := range shared + exclusive {
		jobs = append(jobs, j)
	}
	runLanes(jobs, func(j int) bool { return j >= shared }, 3, run)
	if len(order) != shared+exclusive {
		t.Fatalf("ran %d cells, want %d", len(order), shared+exclusive)
	}
	if maxExclusive.Load() != 1 {
		t.Errorf("%d exclusive cells ran at once, want 1", maxExclusive.Load())
	}
	if !overlapped.Load() {
		t.Error("no exclusive cell ran while the pool ran others: they waited for the pool")
	}
}
