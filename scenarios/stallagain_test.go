package scenarios

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// computes is uuid-lua whose TryAcquire first runs spin, which computes
// without blocking.
type computes struct {
	lockimpl.Lock
	spin func()
}

func (l computes) TryAcquire(ctx context.Context) (bool, error) {
	l.spin()
	return l.Lock.TryAcquire(ctx)
}

func computing(t *testing.T, name string, spin func()) lockimpl.Info {
	in, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	mk := in.New
	in.Name = name
	in.New = func(env lockimpl.Env) lockimpl.Lock { return computes{mk(env), spin} }
	return in
}

// spinUntil computes until done is closed. Lock code runs in a bubble,
// whose clock stands still while it computes: done is closed by a timer of
// the test's, outside it.
func spinUntil(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
	}
}

// lessonsByID looks the lessons ids up, in order.
func lessonsByID(t *testing.T, ids ...string) []Scenario {
	t.Helper()
	var out []Scenario
	for _, id := range ids {
		s, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Issue #38, item 8: a lock that computes long in a call, run beside other
// lessons on a busy machine, was given up as running "without end". A cell
// given up as stalled runs again alone; here the first call of the run
// computes past the stall bound (as a call does when many lessons share
// two cores), and both lessons are judged. Before, one cell was an error.
func TestStalledCellRunsAgainAlone(t *testing.T) {
	var first atomic.Bool
	spun := make(chan struct{})
	time.AfterFunc(800*time.Millisecond, func() { close(spun) })
	info := computing(t, "slow-once", func() {
		if first.CompareAndSwap(false, true) {
			spinUntil(spun)
		}
	})
	// The run given up ends once its call returns: before the leak check.
	defer func() { <-spun }()
	ctx := sim.WithStallTimeout(t.Context(), 300*time.Millisecond)
	results, err := CheckCellsOn(ctx, nil, lessonsByID(t, "oversell", "setnx-no-ex"), []lockimpl.Info{info}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Error != "" {
			t.Errorf("%s: %s", r.Scenario, r.Error)
		}
	}
}

// A lock that computes without end stalls alone too: that cell says so, and
// the implementation's other stalled cell is not run a third time.
func TestEndlessCellSaysItStalledAlone(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	var calls atomic.Int32
	info := computing(t, "endless", func() {
		calls.Add(1)
		spinUntil(stop) // until the test ends
	})
	ctx := sim.WithStallTimeout(t.Context(), 200*time.Millisecond)
	results, err := CheckCellsOn(ctx, nil, lessonsByID(t, "oversell", "setnx-no-ex"), []lockimpl.Info{info}, 2)
	if err != nil {
		t.Fatal(err)
	}
	again := 0
	for _, r := range results {
		if !strings.Contains(r.Error, ": stalled: A (in its lock's TryAcquire)") {
			t.Errorf("%s: error %q, want a stall", r.Scenario, r.Error)
		}
		if strings.HasSuffix(r.Error, "(again when it ran alone)") {
			again++
		}
	}
	if again != 1 {
		t.Errorf("%d cells say they stalled alone, want 1: %+v", again, results)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d calls of TryAcquire, want 3: one per cell, and one run again", n)
	}
}
