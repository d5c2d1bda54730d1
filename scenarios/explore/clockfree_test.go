package explore

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A lock marked ClockFree is searched without when its goroutines last
// woke: fewer states, the same findings at the same depths as the search
// that keeps it. Every built-in marked so, with a pause and with a crash;
// the long step takes them deeper.
func TestClockFreeFindsTheSame(t *testing.T) {
	depth := 7
	if os.Getenv("LOCKSTEP_LONG") != "" {
		depth = 10
	}
	for _, in := range lockimpl.All() {
		if !in.ClockFree {
			continue
		}
		for _, faults := range [][]trace.Fault{{sim.FaultExpiry, sim.FaultPause}, {sim.FaultExpiry, sim.FaultCrash}} {
			opts := Options{Faults: faults, Depth: depth, Attempts: 2}
			free := searchInfo(t, in, opts)
			kept := in
			kept.ClockFree = false
			timed := searchInfo(t, kept, opts)
			if got, want := summary(free), summary(timed); got != want {
				t.Errorf("%s %v: without when goroutines woke %s\nwith it %s", in.Name, faults, got, want)
			}
			if free.States > timed.States {
				t.Errorf("%s %v: %d states without when goroutines woke, %d with it", in.Name, faults, free.States, timed.States)
			}
		}
	}
}

func searchInfo(t *testing.T, in lockimpl.Info, opts Options) Result {
	t.Helper()
	res, err := Search(context.Background(), in, opts)
	if err != nil {
		t.Fatalf("%s: %v", in.Name, err)
	}
	return res
}

// A lock marked ClockFree that reads Env.Clock.Now fails its run, naming
// itself: the search cannot trust what it said.
func TestClockFreeLockThatReadsTheClockFails(t *testing.T) {
	info := lockimpl.Info{Name: "clock-reader", Nodes: 1, ClockFree: true, New: func(env lockimpl.Env) lockimpl.Lock {
		return clockReader{lockimpl.NewUUIDLua(env), env}
	}}
	_, err := Search(context.Background(), info, Options{Depth: 4})
	if err == nil || !strings.Contains(err.Error(), "clock-reader is marked ClockFree (lockimpl.Info) but read the clock (Env.Clock.Now)") {
		t.Fatalf("got %v; want the run failed for reading the clock", err)
	}
	info.ClockFree = false
	if _, err := Search(context.Background(), info, Options{Depth: 4}); err != nil {
		t.Fatalf("unmarked: %v", err)
	}
}

type clockReader struct {
	lockimpl.Lock
	env lockimpl.Env
}

func (c clockReader) TryAcquire(ctx context.Context) (bool, error) {
	_ = c.env.Clock.Now()
	return c.Lock.TryAcquire(ctx)
}
