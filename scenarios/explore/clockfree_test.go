package explore

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A lock marked ClockFree is searched without when its goroutines last
// woke: fewer states, the same findings at the same depths as the search
// that keeps it. Every built-in marked so, with a pause and with a crash;
// and watch-multi in gc-pause's search (six attempts, a liveness bound),
// where its mutex needs a WATCH sent before the lease ran out told apart
// from one sent after (ActorView.Watching).
func TestClockFreeFindsTheSame(t *testing.T) {
	clockFreeFindsTheSame(t, 6, 10, func(in lockimpl.Info) bool { return in.Name == "watch-multi" })
}

// The same deeper, and every one through gc-pause's search.
func TestLongClockFreeFindsTheSame(t *testing.T) {
	long(t)
	clockFreeFindsTheSame(t, 8, 12, func(lockimpl.Info) bool { return true })
}

func clockFreeFindsTheSame(t *testing.T, depth, gcDepth int, gc func(lockimpl.Info) bool) {
	pause, crash := []trace.Fault{sim.FaultExpiry, sim.FaultPause}, []trace.Fault{sim.FaultExpiry, sim.FaultCrash}
	for _, in := range lockimpl.All() {
		if !in.ClockFree {
			continue
		}
		searches := []Options{{Faults: pause, Depth: depth, Attempts: 2}, {Faults: crash, Depth: depth, Attempts: 2}}
		if gc(in) {
			searches = append(searches, Options{Faults: pause, Depth: gcDepth, Attempts: 6, Liveness: time.Minute, MaxStates: 2500})
		}
		for _, opts := range searches {
			free := searchInfo(t, in, opts)
			kept := in
			kept.ClockFree = false
			timed := searchInfo(t, kept, opts)
			if !agreeWithin(free, timed) {
				t.Errorf("%s %v: without when goroutines woke %s\nwith it %s", in.Name, opts.Faults, summary(free), summary(timed))
			}
			if free.States > timed.States {
				t.Errorf("%s %v: %d states without when goroutines woke, %d with it", in.Name, opts.Faults, free.States, timed.States)
			}
		}
	}
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

// agreeWithin says that a search with fewer states (free) went at least as
// deep as one with more (timed), under the same budget, and found each
// invariant within timed's depth at the same length.
func agreeWithin(free, timed Result) bool {
	if free.Depth < timed.Depth || free.Complete != timed.Complete && !free.Complete {
		return false
	}
	within := func(r Result) map[string]int {
		m := map[string]int{}
		for _, f := range r.Found {
			if f.Moves <= timed.Depth {
				m[f.Invariant] = f.Moves
			}
		}
		return m
	}
	return maps.Equal(within(free), within(timed))
}
