package explore

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/internal/stall"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// library marks the catalogue's adapters of outside libraries.
var library = map[string]bool{"redislock": true, "redsync": true, "redsync-redlock": true}

// heavy skips a test that searches for seconds when the race detector (ten
// times slower) is on; the plain run covers it.
func heavy(t *testing.T) {
	if race.Enabled {
		t.Skip("a search of many thousand states; run without -race")
	}
}

// long skips a search that takes many seconds unless LOCKSTEP_LONG=1, which
// .ci/run sets (its step runs the tests named TestLong…): go test ./... stays
// fast, and CI searches deeper.
func long(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("a long search: LOCKSTEP_LONG=1 runs it")
	}
	heavy(t)
}

func search(t *testing.T, name string, opts Options) Result {
	t.Helper()
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return searchInfo(t, in, opts)
}

// searchInfo is search of an implementation not looked up by name (one
// with a field changed).
func searchInfo(t *testing.T, in lockimpl.Info, opts Options) Result {
	t.Helper()
	r, err := Search(context.Background(), in, opts)
	if err != nil {
		t.Fatalf("%s: %v", in.Name, err)
	}
	return r
}

func brokenIDs(r Result) []string {
	var ids []string
	for _, f := range r.Found {
		ids = append(ids, f.Invariant)
	}
	return ids
}

// expiryOnlyBreaks is what a search with expiry only, the default, finds:
// the releases that can remove another client's lock — a constant value, or
// GET then DEL — break ownership; every other implementation keeps every
// invariant in the whole reachable state space (or, for the watchdog locks,
// to the depth searched).
var expiryOnlyBreaks = map[string][]string{
	"setnx-expire": {invariant.Ownership},
	"set-nx-ex":    {invariant.Ownership},
	"uuid-get-del": {invariant.Ownership},
	// No lock across processes: two clients at once, and a lost update.
	"no-lock":     {invariant.Mutex, invariant.Resource},
	"local-mutex": {invariant.Mutex, invariant.Resource},
	// GET, then a SET without NX: two clients both read "free".
	"reentrant-getset": {invariant.Mutex, invariant.Ownership, invariant.Resource},
}

// slowToTwelve are the locks whose search to 12 moves takes seconds: the
// watchdogs' timers and Redlock's three nodes make many states.
var slowToTwelve = map[string]bool{"fenced": true, "redlock": true, "redlock-no-validity": true, "uuid-lua-watchdog": true,
	"uuid-lua-watchdog-uncapped": true, "watchdog-unchecked": true, "redlock-fenced": true, "redisson": true}

// expiryOnly searches the named implementations to 12 moves, in parallel.
func expiryOnly(t *testing.T, names []string) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := search(t, name, Options{Depth: 12})
			if got := brokenIDs(r); !slices.Equal(got, expiryOnlyBreaks[name]) {
				t.Errorf("broken %v, want %v", got, expiryOnlyBreaks[name])
			}
			if r.TimedOut || r.Depth == 0 {
				t.Errorf("searched to depth %d, timed out %v", r.Depth, r.TimedOut)
			}
		})
	}
}

// Expiry only, to 12 moves: the quick locks here, the slow ones in
// TestLongExpiryOnly. The libraries' searches (expiry only, to 14 moves) are
// lockimpl's TestLongLibrariesTwentyTimes.
func TestExpiryOnly(t *testing.T) {
	heavy(t)
	expiryOnly(t, slices.DeleteFunc(lockimpl.Names(), func(name string) bool {
		return library[name] || slowToTwelve[name]
	}))
	// uuid-lua's whole state space is small: the search completes.
	if r := search(t, "uuid-lua", Options{}); !r.Complete || len(r.Found) != 0 {
		t.Errorf("uuid-lua: complete %v, found %v", r.Complete, brokenIDs(r))
	}
}

func TestLongExpiryOnly(t *testing.T) {
	long(t)
	expiryOnly(t, slices.DeleteFunc(lockimpl.Names(), func(name string) bool {
		return !slowToTwelve[name]
	}))
}

// The shortest ownership counterexample against uuid-get-del is the
// GET-then-DEL race: A's GET, the lease runs out, B takes the lock, A's DEL.
func TestGetThenDelFoundShortest(t *testing.T) {
	r := search(t, "uuid-get-del", Options{})
	f, ok := r.Broken(invariant.Ownership)
	if !ok {
		t.Fatal("no ownership counterexample")
	}
	want := []string{"A", "A", "B", "time", "A", "A", "A", "time", "B", "A"}
	if !slices.Equal(f.Trace.Schedule.Moves, want) || f.Moves != len(want) {
		t.Errorf("moves %v, want %v", f.Trace.Schedule.Moves, want)
	}
	var cmds []string
	for _, e := range f.Trace.Events {
		if e.Kind == trace.KindCommand {
			cmds = append(cmds, e.Actor+" "+e.Command)
		}
	}
	wantCmds := []string{"A SET lock:product:1001 A#1 EX 30 NX", "A GET lock:product:1001",
		"B SET lock:product:1001 B#1 EX 30 NX", "A DEL lock:product:1001"}
	if !slices.Equal(cmds, wantCmds) {
		t.Errorf("commands %q, want %q", cmds, wantCmds)
	}
	v := f.Trace.Verdict(invariant.Ownership)
	if last := f.Trace.Events[len(f.Trace.Events)-1]; v.Step > len(f.Trace.Events)-1 || last.T != 30*time.Second {
		t.Errorf("violation at step %d of %d, ending at t=%s", v.Step, len(f.Trace.Events), last.T)
	}
}

// With pauses allowed, every lease breaks the resource (the stale write
// after a pause) — and fencing keeps it, though two clients believe. The
// quick locks here; TestLongPauseStaleWrite searches the slow ones.
func TestPauseStaleWrite(t *testing.T) {
	heavy(t)
	pauseStaleWrite(t, "set-nx-ex", "uuid-get-del", "uuid-lua", "uuid-lua-wait")
}

func TestLongPauseStaleWrite(t *testing.T) {
	long(t)
	pauseStaleWrite(t, "uuid-lua-watchdog", "reentrant", "fenced")
	// Redlock's schedules are longer: three nodes to take twice, each
	// node's answer a move of its own. The stale write is 18 moves in.
	r := search(t, "redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 18})
	if _, ok := r.Broken(invariant.Resource); !ok {
		t.Errorf("redlock: no stale write within 18 moves (%d states)", r.States)
	}
}

func pauseStaleWrite(t *testing.T, names ...string) {
	opts := Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 12}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := search(t, name, opts)
			if _, ok := r.Broken(invariant.Mutex); !ok {
				t.Errorf("no two holders found under pauses")
			}
			_, stale := r.Broken(invariant.Resource)
			if stale != (name != "fenced") {
				t.Errorf("resource broken: %v", stale)
			}
		})
	}
}

// A crash while holding a lock without a lease orphans it: with retries,
// the waiter's liveness breaks. Four attempts (t=0, 15, 30, 45): with three,
// the last fails at the bound's own instant and the waiter gives up then,
// within the bound.
func TestCrashOrphansSetnx(t *testing.T) {
	r := search(t, "setnx", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash}, Attempts: 4})
	f, ok := r.Broken(invariant.Liveness)
	if !ok {
		t.Fatalf("no liveness counterexample (%d states, depth %d)", r.States, r.Depth)
	}
	if !slices.Contains(f.Trace.Schedule.Moves, "crash A") && !slices.Contains(f.Trace.Schedule.Moves, "crash B") {
		t.Errorf("the counterexample %v crashes nobody", f.Trace.Schedule.Moves)
	}
}

// A crashed holder's lease runs out at the very instant the liveness bound
// (the lease) does, and the waiter's retry is due then too: liveness is
// judged once that retry has run, and the retry gets the lock. setnx's lock
// never runs out, so its waiter still waits in vain (TestCrashOrphansSetnx).
func TestCrashedLeaseFreesTheWaiterInTime(t *testing.T) {
	r := search(t, "uuid-lua", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash}, Attempts: 3})
	if f, ok := r.Broken(invariant.Liveness); ok {
		t.Errorf("liveness broken in %d moves: %v", f.Moves, f.Trace.Schedule.Moves)
	}
	if !r.Complete || len(r.Found) != 0 {
		t.Errorf("complete %v, found %v", r.Complete, brokenIDs(r))
	}
	// The schedule the search reported: at t=30s B's retry wakes, A's key
	// expires, and B's SET takes the lock.
	in, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	moves := []string{"A", "A", "B", "B", "crash A", "time", "B", "B", "time", "B", "B"}
	tr, err := Replay(context.Background(), in, &trace.Schedule{Clients: 2, Attempts: 3,
		Faults: []trace.Fault{sim.FaultExpiry, sim.FaultCrash}, Moves: moves})
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Events[len(tr.Events)-1]
	if got := tr.Broken(); len(got) != 0 || last.T != 30*time.Second || last.Snap.Clients[1].Belief != trace.BeliefHolds {
		t.Errorf("broken %v; at t=%v B is %s, want holds at 30s", got, last.T, last.Snap.Clients[1].Belief)
	}
}

// The same arguments give the same result: states, depth, counterexamples.
func TestDeterministic(t *testing.T) {
	opts := Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 10}
	a, b := search(t, "uuid-get-del", opts), search(t, "uuid-get-del", opts)
	if a.States != b.States || a.Depth != b.Depth || len(a.Found) != len(b.Found) {
		t.Fatalf("two searches: %d/%d states, depth %d/%d, %d/%d found", a.States, b.States, a.Depth, b.Depth, len(a.Found), len(b.Found))
	}
	for i := range a.Found {
		if !slices.Equal(a.Found[i].Trace.Schedule.Moves, b.Found[i].Trace.Schedule.Moves) {
			t.Errorf("%s: %v vs %v", a.Found[i].Invariant, a.Found[i].Trace.Schedule.Moves, b.Found[i].Trace.Schedule.Moves)
		}
	}
}

// Every counterexample replays to the same violation, event for event.
func TestCounterexamplesReplay(t *testing.T) {
	heavy(t)
	opts := Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause, sim.FaultCrash}}
	for name, depth := range map[string]int{"set-nx-ex": 10, "uuid-get-del": 10, "uuid-lua-watchdog": 8} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := opts
			opts.Depth = depth
			r := search(t, name, opts)
			if len(r.Found) == 0 {
				t.Fatalf("%s: nothing found", name)
			}
			in, _ := lockimpl.Lookup(name)
			for _, f := range r.Found {
				again, err := Replay(context.Background(), in, f.Trace.Schedule)
				if err != nil {
					t.Fatal(err)
				}
				v, w := f.Trace.Verdict(f.Invariant), again.Verdict(f.Invariant)
				if !w.Broken || v.Step != w.Step || len(again.Events) != len(f.Trace.Events) {
					t.Errorf("%s/%s: replay broke at step %d (%v) of %d events, the finding at %d of %d",
						name, f.Invariant, w.Step, w.Broken, len(again.Events), v.Step, len(f.Trace.Events))
				}
			}
		})
	}
}

// A search never claims more than it searched: a depth bound says so, and
// the timeout stops it.
func TestBounds(t *testing.T) {
	r := search(t, "uuid-lua-watchdog", Options{Depth: 3})
	if r.Depth != 3 || r.Complete || r.TimedOut {
		t.Errorf("depth %d, complete %v, timed out %v; want depth 3, neither", r.Depth, r.Complete, r.TimedOut)
	}
	r = search(t, "fenced", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 40, Timeout: 300 * time.Millisecond})
	if !r.TimedOut || r.Complete || r.Depth >= 40 {
		t.Errorf("timed out %v, complete %v, depth %d", r.TimedOut, r.Complete, r.Depth)
	}
	if err := (Options{Clients: 4}).Validate(); err == nil {
		t.Error("4 clients accepted")
	}
	if err := (Options{Faults: []trace.Fault{"meteor"}}).Validate(); err == nil {
		t.Error("an unknown fault accepted")
	}
}

// A search from a prefix (the sandbox's hint) continues from that state.
func TestPrefix(t *testing.T) {
	prefix := []string{"A", "A", "B"}
	r := search(t, "uuid-get-del", Options{Prefix: prefix, First: true})
	f, ok := r.Broken(invariant.Ownership)
	if !ok {
		t.Fatal("nothing found from the prefix")
	}
	if !slices.Equal(f.Trace.Schedule.Moves[:3], prefix) || f.Moves != 10 {
		t.Errorf("moves %v (%d)", f.Trace.Schedule.Moves, f.Moves)
	}
}

// A hung call lifts the rule that a live holder finishes within its lease,
// as a pause does, but the hung client's watchdog runs on: the uncapped
// watchdog keeps the lock for a holder that will never finish (liveness),
// while a lease without a watchdog runs out under it (mutex, resource).
func TestHangFault(t *testing.T) {
	heavy(t)
	hang := []trace.Fault{sim.FaultExpiry, sim.FaultHang}
	r := search(t, "uuid-lua-watchdog-uncapped", Options{Faults: hang, Attempts: 3, Depth: 13})
	if _, ok := r.Broken(invariant.Liveness); !ok {
		t.Errorf("uuid-lua-watchdog-uncapped with a hang: found %v, want liveness", brokenIDs(r))
	}
	if _, ok := r.Broken(invariant.Mutex); ok {
		t.Errorf("uuid-lua-watchdog-uncapped with a hang: mutex broken; its watchdog keeps the lease")
	}
	r = search(t, "uuid-lua", Options{Faults: hang, Depth: 13})
	if got := brokenIDs(r); !slices.Equal(got, []string{invariant.Mutex, invariant.Resource}) {
		t.Errorf("uuid-lua with a hang: found %v, want mutex and resource", got)
	}
	if r := search(t, "uuid-lua", Options{Depth: 12}); len(r.Found) > 0 {
		t.Errorf("uuid-lua without a hang: found %v", brokenIDs(r))
	}
}

// A lease each client passes itself (Options.Lease) turns redisson's
// watchdog off: a hung call then lets the lease run out, as with uuid-lua;
// with no lease its watchdog keeps the lock through the hang.
func TestLeaseTurnsTheWatchdogOff(t *testing.T) {
	heavy(t)
	hang := []trace.Fault{sim.FaultExpiry, sim.FaultHang}
	r := search(t, "redisson", Options{Faults: hang, Depth: 10, Lease: 10 * time.Second})
	if _, ok := r.Broken(invariant.Mutex); !ok {
		t.Errorf("redisson with a lease and a hang: found %v, want mutex", brokenIDs(r))
	}
	if f := r.Found; len(f) > 0 && f[0].Trace.Schedule.Lease != 10*time.Second {
		t.Errorf("the counterexample's schedule has lease %v, want 10s", f[0].Trace.Schedule.Lease)
	}
	r = search(t, "redisson", Options{Faults: hang, Depth: 10})
	if _, ok := r.Broken(invariant.Mutex); ok {
		t.Errorf("redisson with no lease and a hang: mutex broken; its watchdog keeps the lease")
	}
}

// A state budget stops the search at the same place every time, close
// above the budget, and says so; what it found is still shortest.
func TestMaxStates(t *testing.T) {
	heavy(t)
	opts := Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}, Depth: 14, MaxStates: 300}
	a, b := search(t, "set-nx-ex", opts), search(t, "set-nx-ex", opts)
	if !a.OverBudget || a.Complete {
		t.Fatalf("over budget %v, complete %v; want a search stopped by its budget", a.OverBudget, a.Complete)
	}
	if a.States <= 300 || a.States > 300+budgetChunk*8 {
		t.Errorf("%d states with a budget of 300", a.States)
	}
	if summary(a) != summary(b) || a.States != b.States {
		t.Errorf("two searches with the same budget: %s (%d states), %s (%d states)", summary(a), a.States, summary(b), b.States)
	}
	full := search(t, "set-nx-ex", Options{Faults: opts.Faults, Depth: a.Depth + 1})
	for _, f := range a.Found {
		if g, ok := full.Broken(f.Invariant); !ok || g.Moves != f.Moves {
			t.Errorf("%s in %d moves under the budget; without it %v", f.Invariant, f.Moves, g.Moves)
		}
	}
}

// A clock that jumps ahead on one of Redlock's nodes expires the key there
// at once: B gets that node and another, and holds a majority beside A.
func TestClockJumpFault(t *testing.T) {
	heavy(t)
	r := search(t, "redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultClockJump}, Depth: 9, First: true})
	f, ok := r.Broken(invariant.Mutex)
	if !ok || !slices.ContainsFunc(f.Trace.Schedule.Moves, func(m string) bool { return strings.HasPrefix(m, "clock-jump ") }) {
		t.Fatalf("redlock with a clock jump: found %v, want mutex through a clock-jump move", brokenIDs(r))
	}
	if r := search(t, "redlock", Options{Depth: 9}); len(r.Found) > 0 {
		t.Errorf("redlock without a clock jump, to 9 moves: found %v", brokenIDs(r))
	}
}

// The delayed-restart rule holds against the restart that breaks Redlock:
// a node that comes back empty at once hands B a second majority; one that
// stays down longer than the lease does not. The stopped node comes back by
// itself, empty, once the lease and RestartDelay have passed.
func TestDelayedRestartFault(t *testing.T) {
	heavy(t)
	restart := search(t, "redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultRestart}, Attempts: 2, Depth: 9, First: true})
	if _, ok := restart.Broken(invariant.Mutex); !ok {
		t.Fatalf("redlock with an immediate restart, to 9 moves: found %v, want mutex", brokenIDs(restart))
	}
	delayed := search(t, "redlock", Options{Faults: []trace.Fault{sim.FaultExpiry, sim.FaultDelayedRestart}, Attempts: 2, Depth: 10})
	if len(delayed.Found) > 0 {
		t.Errorf("redlock with a delayed restart, to 10 moves: found %v", brokenIDs(delayed))
	}

	in, err := lockimpl.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewWorld(in, trace.Schedule{Clients: 2, Attempts: 1, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultDelayedRestart}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, m := range []string{"A", "A/redis-1", "A/redis-2", "A/redis-3", "delayed-restart redis-2"} {
		if err := st.Do(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	// Time whenever it may pass, else the first client's step.
	var made []string
	for st.Now() < TTL+sim.RestartDelay && len(made) < 40 {
		moves := st.Moves()
		i := slices.IndexFunc(moves, func(m sim.Move) bool { return m.Kind == sim.MoveTime })
		if i < 0 {
			i = slices.IndexFunc(moves, func(m sim.Move) bool { return m.Kind == sim.MoveStep })
		}
		if i < 0 {
			t.Fatalf("after %v at %s: no time and no step among %v", made, st.Now(), moves)
		}
		if err := st.Do(moves[i].ID); err != nil {
			t.Fatalf("%s at %s: %v", moves[i].ID, st.Now(), err)
		}
		made = append(made, moves[i].ID+"@"+narrate.Secs(st.Now()))
	}
	if st.Now() != TTL+sim.RestartDelay {
		t.Fatalf("moves %v: the clock is at %s, want the restart at %s", made, st.Now(), TTL+sim.RestartDelay)
	}
	tr := st.Trace()
	last := tr.Events[len(tr.Events)-1].Snap
	for _, srv := range last.Servers {
		if srv.Name == "redis-2" && (!srv.Up || len(srv.Keys) != 0) {
			t.Errorf("at %s redis-2 is up=%v with keys %v, want up and empty", st.Now(), srv.Up, srv.Keys)
		}
	}
}

// A live holder finishes within its lease even when a restart took its keys
// away: the search does not let time run past the lease while the holder
// has not moved. (Before, the rule looked only at keys still there: with
// every node down, time ran on and B got a majority of restarted nodes
// while A, unmoved since t=5s, still held its lock — a pause the fault set
// did not have.)
func TestLeaseOutlivesItsKeys(t *testing.T) {
	in, err := lockimpl.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewWorld(in, trace.Schedule{Clients: 2, Attempts: 3, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultDelayedRestart}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, m := range []string{"A", "A/redis-1", "A/redis-2", "A/redis-3", "delayed-restart redis-1", "delayed-restart redis-2", "delayed-restart redis-3"} {
		if err := st.Do(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	// Only time, for as long as it may pass.
	for {
		moves := st.Moves()
		i := slices.IndexFunc(moves, func(m sim.Move) bool { return m.Kind == sim.MoveTime })
		if i < 0 {
			break
		}
		if err := st.Do("time"); err != nil {
			t.Fatal(err)
		}
	}
	if st.Now() > TTL {
		t.Errorf("time passed to %s with A holding since t=0 and not moved: past its lease of %s", st.Now(), TTL)
	}
}

// When an acquire began is part of the state while its nodes' answers are
// outstanding: Redlock counts the time from there. B starting before time
// passes to t=30s and B starting after it are two states (the first B's
// majority comes too late); with one, the search missed the pause's mutex.
func TestAcquireStartIsState(t *testing.T) {
	in, err := lockimpl.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	hash := func(moves ...string) uint64 {
		st, err := NewWorld(in, trace.Schedule{Clients: 2, Attempts: 2, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for _, m := range slices.Concat([]string{"A", "A/redis-1", "A/redis-2", "A/redis-3", "pause A"}, moves) {
			if err := st.Do(m); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
		return Hash(st.State())
	}
	if hash("B", "time") == hash("time", "B") {
		t.Error("B's acquire begun before time passed and after it: one state")
	}
}

// A partition between a holder and its server cuts its watchdog off: the
// lease runs out while the holder works on, as in the partition lesson. A
// hung call alone leaves the watchdog renewing, and nothing breaks.
func TestPartitionFault(t *testing.T) {
	heavy(t)
	hang := []trace.Fault{sim.FaultExpiry, sim.FaultHang}
	if r := search(t, "uuid-lua-watchdog", Options{Faults: hang, Depth: 9}); len(r.Found) > 0 {
		t.Errorf("uuid-lua-watchdog, a hung call, to 9 moves: found %v", brokenIDs(r))
	}
	r := search(t, "uuid-lua-watchdog", Options{Faults: append(hang, sim.FaultPartition), Depth: 9, First: true})
	f, ok := r.Broken(invariant.Mutex)
	if !ok || !slices.ContainsFunc(f.Trace.Schedule.Moves, func(m string) bool { return strings.HasPrefix(m, "partition ") }) {
		t.Fatalf("uuid-lua-watchdog with a partition: found %v, want mutex through a partition move", brokenIDs(r))
	}
}

// Redlock on five servers: from the state where A has redis-1..3 and B
// redis-4..5, a restart of one of A's servers gives B its third (mutex),
// six moves on: A's last two answers, the restart, and B's three. The
// counterexample's trace names five servers, and its schedule says so and
// replays.
func TestFiveNodes(t *testing.T) {
	heavy(t)
	prefix := []string{"A", "B", "A/redis-1", "A/redis-2", "A/redis-3", "B/redis-4", "B/redis-5"}
	r := search(t, "redlock", Options{Nodes: 5, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultRestart}, Prefix: prefix, Depth: 6})
	f, ok := r.Broken(invariant.Mutex)
	if !ok {
		t.Fatalf("mutex held within 6 moves of %v on five servers", prefix)
	}
	if f.Moves != len(prefix)+6 || !slices.ContainsFunc(f.Trace.Schedule.Moves, func(m string) bool { return strings.HasPrefix(m, "restart ") }) {
		t.Errorf("counterexample %v (%d moves), want %d moves with a restart", f.Trace.Schedule.Moves, f.Moves, len(prefix)+6)
	}
	if got := strings.Join(f.Trace.Servers, " "); got != "redis-1 redis-2 redis-3 redis-4 redis-5" {
		t.Errorf("servers %s", got)
	}
	if f.Trace.Schedule.Nodes != 5 {
		t.Errorf("the schedule says %d nodes, want 5", f.Trace.Schedule.Nodes)
	}
	in, _ := lockimpl.Lookup("redlock")
	tr, err := Replay(context.Background(), in, f.Trace.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != len(f.Trace.Events) {
		t.Errorf("replay: %d events, want %d", len(tr.Events), len(f.Trace.Events))
	}
	if err := (Options{Nodes: 4}).Validate(); err == nil || !strings.Contains(err.Error(), "--nodes must be 3 or 5, not 4") {
		t.Errorf("4 nodes: %v", err)
	}
}

// unconfigured is a lock that cannot run: every call of it fails before it
// sends anything, as a lock missing its configuration does.
type unconfigured struct{}

func (unconfigured) TryAcquire(context.Context) (bool, error) {
	return false, errors.New("no servers configured")
}
func (unconfigured) Release(context.Context) error { return errors.New("no servers configured") }

// Issue #27: a lock whose every call fails is not "explored, nothing
// breaks it", nor does it leave an "orphaned" lock behind a crash: the
// search has no verdict, as a lesson's run of it has none.
func TestSearchOfALockThatNeverRunsHasNoVerdict(t *testing.T) {
	info := lockimpl.Info{Name: "unconfigured", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return unconfigured{} }}
	for _, faults := range [][]trace.Fault{{sim.FaultExpiry}, {sim.FaultExpiry, sim.FaultCrash}} {
		res, err := Search(context.Background(), info, Options{Depth: 8, Faults: faults})
		if err == nil || !strings.Contains(err.Error(), "no verdict: unconfigured did not run in any of the") {
			t.Errorf("faults %v: %v, found %d; want no verdict", faults, err, len(res.Found))
		}
	}
}

// Issue #27: the search runs a lock written with WATCH and MULTI/EXEC as it
// is, and can put another client's command between a WATCH and its EXEC:
// the optimistic lock breaks no invariant in the reachable states with
// expiry, as uuid-lua's compare-and-delete script keeps them.
func TestSearchOfATransactionLock(t *testing.T) {
	watchMulti, err := lockimpl.Lookup("watch-multi")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Search(context.Background(), watchMulti, Options{Depth: 12})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Found) != 0 || r.Depth == 0 {
		t.Errorf("found %v at depth %d; want nothing", brokenIDs(r), r.Depth)
	}
	// Without the WATCH, the search comes between the read and EXEC: both
	// clients read the key absent, both write it.
	unwatched := lockimpl.Info{Name: "watch-multi-unwatched", Nodes: 1, New: lockimpl.NewWatchMultiUnwatched}
	r, err = Search(context.Background(), unwatched, Options{Depth: 12})
	if err != nil {
		t.Fatal(err)
	}
	if got := brokenIDs(r); !slices.Contains(got, invariant.Mutex) {
		t.Errorf("watch-multi-unwatched: broken %v; want mutex", got)
	}
}

// Issue #38, item 4: a Release that blocks for good is the search's error,
// naming the call and the schedule that led to it, as every lesson reports
// it; the search is not "complete, nothing broken".
func TestSearchOfABlockedReleaseIsAnError(t *testing.T) {
	res, err := Search(context.Background(), stall.Stuck(), Options{Depth: 12})
	if err == nil {
		t.Fatalf("no error: complete %v, %d states, found %v", res.Complete, res.States, brokenIDs(res))
	}
	for _, want := range []string{"A's Release is blocked in the lock implementation stall-release, at github.com/lockstep-sim/lockstep/internal/stall.(*lock).Release (stall.go:",
		"nothing in the run can wake it", "after the moves A, "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
}

// With readers (issue #41, read-write): two readers and a writer. The read
// release that deletes the whole hash is found at once — the first
// reader's release takes the other's hold (ownership, 7 moves), and the
// writer gets in beside it (mutex, 9) — and Redisson's read-write lock
// keeps every invariant to the same depth. Readers inside together break
// nothing: without a writer, none of it breaks mutex.
func TestReadersSearch(t *testing.T) {
	opts := Options{Clients: 3, Readers: 2, Depth: 9}
	r := search(t, "rw-unchecked", opts)
	for id, moves := range map[string]int{invariant.Ownership: 7, invariant.Mutex: 9} {
		if f, ok := r.Broken(id); !ok || f.Moves != moves {
			t.Errorf("rw-unchecked with 2 readers: %s found %v in %d moves; want %d", id, ok, f.Moves, moves)
		}
	}
	if f, ok := r.Broken(invariant.Mutex); ok && f.Trace.Schedule.Readers != 2 {
		t.Errorf("the counterexample's schedule has %d readers, want 2: it would not replay", f.Trace.Schedule.Readers)
	}
	if got := brokenIDs(search(t, "redisson-rw", opts)); len(got) != 0 {
		t.Errorf("redisson-rw with 2 readers broke %v", got)
	}
	if err := (Options{Clients: 2, Readers: 2}).Validate(); err == nil {
		t.Error("2 readers of 2 clients: no error; one client must write")
	}
}

// Options name the same search when they ask for the same world and
// bounds, whatever leaves a default to the world; a stock of its own is
// another search.
func TestOptionsKey(t *testing.T) {
	if (Options{Stock: 100}).Key() != (Options{}).Key() {
		t.Error("a stock of 100 and the default stock name different searches")
	}
	if (Options{Clients: 2, Attempts: 1, Depth: DefaultDepth}).Key() != (Options{}).Key() {
		t.Error("the defaults said and left out name different searches")
	}
	if (Options{Stock: 1}).Key() == (Options{}).Key() {
		t.Error("a stock of 1 and the default stock name the same search")
	}
	if (Options{Progress: func(Progress) {}}).Key() != (Options{}).Key() {
		t.Error("a progress report makes another search")
	}
}
