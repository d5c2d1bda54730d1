package sim

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"go.uber.org/goleak"

	"github.com/lockstep-sim/lockstep/internal/leaktest"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

func impl(t *testing.T, name string) lockimpl.Info {
	t.Helper()
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func run(t *testing.T, setup model.Setup, name string, script Script) *trace.Trace {
	t.Helper()
	tr, err := Run(setup, script, impl(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// commands returns the command events, as "T actor server command → reply".
func commands(tr *trace.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand {
			out = append(out, narrate.Secs(e.T)+" "+e.Actor+" "+e.Server+" "+e.Command+" → "+e.Reply)
		}
	}
	return out
}

func last(tr *trace.Trace) trace.Snapshot { return tr.Events[len(tr.Events)-1].Snap }

func key(s trace.Snapshot, server, k string) (trace.KeyState, bool) {
	for _, srv := range s.Servers {
		if srv.Name == server {
			return model.FindKey(srv.Keys, k)
		}
	}
	return trace.KeyState{}, false
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The gate lets exactly one command out at a time and the running client
// goes on until it blocks: A's whole program, then B's attempt.
func TestOneCommandAtATimeInClientOrder(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Retry: 5 * time.Second, Work: time.Second})
		tl.RunToEnd()
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		"0s B redis-1 SET lock:product:1001 B#1 EX 30 NX → (nil)",
		"1s A redis-1 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
		"5s B redis-1 SET lock:product:1001 B#1 EX 30 NX → OK",
		"6s B redis-1 EVAL <release> 1 lock:product:1001 B#1 → (integer) 1",
	})
	for i, e := range tr.Events {
		if e.Step != i {
			t.Fatalf("event %d has step %d", i, e.Step)
		}
		if i > 0 && e.T < tr.Events[i-1].T {
			t.Fatalf("time goes back at step %d", i)
		}
	}
}

// Virtual time drives key expiry: the key expires exactly at its TTL, with an
// event at that instant.
func TestKeyExpiresAtItsTTL(t *testing.T) {
	tr := run(t, model.Setup{TTL: 10 * time.Second}, "set-nx-ex", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Minute})
		a.HoldAt(trace.OpWrite)
		tl.RunUntil(9999 * time.Millisecond)
		if k, ok := key(tl.w.Snapshot(), "redis-1", "lock:product:1001"); !ok || k.TTL != time.Millisecond {
			t.Errorf("at 9.999s the lock is %+v (present %v), want 1ms left", k, ok)
		}
		tl.RunUntil(20 * time.Second)
	})
	var expired []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindExpire {
			expired = append(expired, narrate.Secs(e.T)+" "+e.Server)
		}
	}
	equal(t, expired, []string{"10s redis-1"})
}

// The watchdog renews every TTL/3 while the business goroutine works.
func TestWatchdogRenewsEveryThirdOfTheTTL(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua-watchdog", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 25 * time.Second})
		tl.RunToEnd()
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		"10s A.watchdog redis-1 EVAL <renew> 1 lock:product:1001 A#1 30000 → (integer) 1",
		"20s A.watchdog redis-1 EVAL <renew> 1 lock:product:1001 A#1 30000 → (integer) 1",
		"25s A redis-1 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
	})
}

// A pause freezes every goroutine of the process, the watchdog included: no
// renewal from t=5s to t=40s, the lease runs out at t=30s, and the overdue
// timer fires on resume, finding the lock gone.
func TestPauseFreezesTheWatchdog(t *testing.T) {
	tr := run(t, model.Setup{}, "uuid-lua-watchdog", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Minute})
		tl.RunUntil(5 * time.Second)
		a.Pause()
		tl.RunUntil(40 * time.Second)
		a.Resume()
		tl.RunUntil(41 * time.Second)
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		"40s A.watchdog redis-1 EVAL <renew> 1 lock:product:1001 A#1 30000 → (integer) 0",
	})
	if c := last(tr).Clients[0]; c.Belief != trace.BeliefLost {
		t.Errorf("A's belief after the failed renewal = %s, want %s", c.Belief, trace.BeliefLost)
	}
}

// HoldAfter stops a client between the commands of a stage and Unhold lets
// it go on; a stage of one command is complete before the hold applies.
func TestHoldAfterStopsBetweenCommands(t *testing.T) {
	script := func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Second})
		a.HoldAfter(trace.OpRelease, 1)
		tl.RunUntil(5 * time.Second)
		a.Unhold()
		tl.RunToEnd()
	}
	tr := run(t, model.Setup{}, "uuid-get-del", script)
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		"1s A redis-1 GET lock:product:1001 → \"A#1\"",
		"5s A redis-1 DEL lock:product:1001 → (integer) 1",
	})
	tr = run(t, model.Setup{}, "uuid-lua", script)
	for _, e := range tr.Events {
		if e.Kind == trace.KindSchedule {
			t.Errorf("a one-command release was held: %s", e.Text.EN)
		}
	}
}

// Replication trails the primary by the lag; the replica gets the key with
// what is left of its TTL and remembers who wrote it.
func TestReplicationLag(t *testing.T) {
	tr := run(t, model.Setup{Replica: true, Lag: 2 * time.Second}, "uuid-lua", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Minute})
		a.HoldAt(trace.OpWrite)
		tl.RunUntil(time.Second)
		if _, ok := key(tl.w.Snapshot(), "redis-2", "lock:product:1001"); ok {
			t.Error("the replica has the lock before the lag has passed")
		}
		if p := tl.w.Snapshot().Servers[1].Pending; p != 1 {
			t.Errorf("pending writes at 1s = %d, want 1", p)
		}
		tl.RunUntil(3 * time.Second)
	})
	k, ok := key(last(tr), "redis-2", "lock:product:1001")
	if !ok || k.Value != "A#1" || k.TTL != 28*time.Second || k.Writer != "A" {
		t.Errorf("replica's lock = %+v (present %v), want A#1 written by A with 28s left", k, ok)
	}
}

// Failover promotes the replica (Sentinel, 0.5s after the death): clients
// reach the new primary, which never got the lock — A's next command too, as
// go-redis drops a connection whose server died and dials again (issue #29
// item 6).
func TestFailoverPromotesTheReplica(t *testing.T) {
	tr := run(t, model.Setup{Replica: true, Lag: time.Second, DownAfter: 500 * time.Millisecond}, "set-nx-ex", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 10 * time.Second})
		tl.RunUntil(500 * time.Millisecond)
		tl.Failover()
		tl.Client("B", model.Program{Start: time.Second, Work: time.Second})
		tl.RunToEnd()
	})
	equal(t, commands(tr), []string{
		"0s A redis-1 SET lock:product:1001 1 EX 30 NX → OK",
		"1s B redis-2 SET lock:product:1001 1 EX 30 NX → OK",
		"2s B redis-2 DEL lock:product:1001 → (integer) 1",
		"10s A redis-2 DEL lock:product:1001 → (integer) 0",
	})
	s := last(tr).Servers
	if s[0].Up || s[1].Role != "primary" {
		t.Errorf("after failover: %s up=%v, %s role=%s", s[0].Name, s[0].Up, s[1].Name, s[1].Role)
	}
}

// A server without a replica (a Redlock node) refuses connections once down.
func TestDownNodeRefuses(t *testing.T) {
	tr := run(t, model.Setup{}, "redlock", func(tl *Timeline) {
		tl.Failover()
		tl.Client("A", model.Program{Work: time.Second})
		tl.RunToEnd()
	})
	got := commands(tr)
	if want := "0s A/redis-1 redis-1 SET lock:product:1001 A#1 EX 30 NX → (error) dial redis-1: connection refused: server is down"; got[0] != want {
		t.Errorf("first command = %q, want %q", got[0], want)
	}
	if c := tr.Events[len(tr.Events)-1]; !strings.Contains(c.Text.EN, "A has released the lock") {
		t.Errorf("A did not acquire and release on the majority; last event: %s", c.Text.EN)
	}
}

// blocker is a lock whose acquire blocks outside the gate and the clock.
type blocker struct{ never chan struct{} }

func (b blocker) TryAcquire(ctx context.Context) (bool, error) { <-b.never; return false, nil }
func (b blocker) Release(ctx context.Context) error            { return nil }

// Lock code that blocks where the scheduler cannot see is an error naming the
// client, not a hang. Once the lock code returns, the stalled goroutine ends
// too: the run is over, so it is told redis.ErrClosed (issue item 13: it used
// to block forever, sending to a scheduler that had gone).
func TestStallIsAnError(t *testing.T) {
	// Deferred first, so it runs last: after never is closed.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), leaktest.BubbleHost)
	shortStall(t, 50*time.Millisecond)
	never := make(chan struct{})
	defer close(never)
	bad := lockimpl.Info{Name: "blocker", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return blocker{never} }}
	_, err := Run(model.Setup{}, func(tl *Timeline) {
		// B and C are still waiting to start when A stalls: the shutdown
		// after the stall must end them too.
		tl.Client("A", model.Program{})
		tl.Client("B", model.Program{})
		tl.Client("C", model.Program{})
		tl.RunToEnd()
	}, bad)
	if err == nil || !strings.Contains(err.Error(), "stalled: A (in its lock's TryAcquire) did not reach") {
		t.Fatalf("err = %v, want a stall naming A", err)
	}
}

// stuck is lock code that naps on the clock, then blocks where the scheduler
// cannot see until block is closed, then starts a goroutine. It closes free,
// if set, once its nap is over.
type stuck struct {
	env   lockimpl.Env
	nap   time.Duration
	block chan struct{}
	free  chan struct{}
}

func (s stuck) TryAcquire(ctx context.Context) (bool, error) {
	_ = s.env.Clock.Sleep(ctx, s.nap)
	if s.free != nil {
		close(s.free)
	}
	<-s.block
	s.env.Go(ctx, "late", func(context.Context) {})
	return false, nil
}
func (s stuck) Release(ctx context.Context) error { return nil }

// A run given up for a stall ends once the stalled lock code comes back:
// the scheduler then fails the run and shuts it down, and every goroutine
// ends with it — B, still waiting to start, and the goroutine A starts on
// its way out (issue item 13: a stalled run used to leave goroutines
// blocked forever).
func TestStallOnTheWayOut(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), leaktest.BubbleHost)
	shortStall(t, 50*time.Millisecond)
	never, freeA := make(chan struct{}), make(chan struct{})
	defer close(never)
	n := 0
	info := lockimpl.Info{Name: "stuck", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		n++
		if n == 1 {
			return stuck{env: env, block: freeA}
		}
		return stuck{env: env, nap: 10 * time.Second, block: never}
	}}
	_, err := Run(model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{})
		tl.Client("B", model.Program{})
		tl.RunToEnd()
	}, info)
	if err == nil || !strings.Contains(err.Error(), "stalled: A (in its lock's TryAcquire) did not reach") {
		t.Fatalf("err = %v, want a stall naming A", err)
	}
	close(freeA)
}

// A malformed script is an error, not a trace.
func TestMalformedScript(t *testing.T) {
	for name, script := range map[string]Script{
		"duplicate client": func(tl *Timeline) { tl.Client("A", model.Program{}); tl.Client("A", model.Program{}) },
		"time going back":  func(tl *Timeline) { tl.RunUntil(time.Second); tl.RunUntil(0) },
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(model.Setup{}, script, impl(t, "uuid-lua")); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestDiffKeys(t *testing.T) {
	k := func(key, v string, ttl time.Duration) trace.KeyState {
		return trace.KeyState{Key: key, Type: "string", Value: v, TTL: ttl}
	}
	for _, tc := range []struct {
		name          string
		before, after []trace.KeyState
		want          []narrate.ChangeKind
	}{
		{"created", nil, []trace.KeyState{k("a", "1", -1)}, []narrate.ChangeKind{narrate.ChangeCreated}},
		{"deleted", []trace.KeyState{k("a", "1", -1)}, nil, []narrate.ChangeKind{narrate.ChangeDeleted}},
		{"value", []trace.KeyState{k("a", "1", 5)}, []trace.KeyState{k("a", "2", 5)}, []narrate.ChangeKind{narrate.ChangeValue}},
		{"extended", []trace.KeyState{k("a", "1", 5)}, []trace.KeyState{k("a", "1", 30)}, []narrate.ChangeKind{narrate.ChangeExtended}},
		{"persisted", []trace.KeyState{k("a", "1", 5)}, []trace.KeyState{k("a", "1", -1)}, []narrate.ChangeKind{narrate.ChangeExtended}},
		{"expiry set", []trace.KeyState{k("a", "1", -1)}, []trace.KeyState{k("a", "1", 30)}, []narrate.ChangeKind{narrate.ChangeTTLSet}},
		{"shortened", []trace.KeyState{k("a", "1", 30)}, []trace.KeyState{k("a", "1", 5)}, []narrate.ChangeKind{narrate.ChangeTTLSet}},
		{"unchanged", []trace.KeyState{k("a", "1", 5)}, []trace.KeyState{k("a", "1", 5)}, nil},
		{"sorted", nil, []trace.KeyState{k("b", "1", -1), k("a", "1", -1)}, []narrate.ChangeKind{narrate.ChangeCreated, narrate.ChangeCreated}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := model.DiffKeys(tc.before, tc.after, 0)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d changes, want %d", len(got), len(tc.want))
			}
			for i, c := range got {
				if c.Kind != tc.want[i] {
					t.Errorf("change %d kind = %d, want %d", i, c.Kind, tc.want[i])
				}
			}
			if tc.name == "sorted" && got[0].Key != "a" {
				t.Error("changes not in key order")
			}
		})
	}
}

// stuckRelease takes its lock, then blocks in Release on a channel nobody
// closes (until the test does).
type stuckRelease struct {
	env   lockimpl.Env
	never chan struct{}
}

func (l stuckRelease) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.env.Token(), l.env.TTL).Result()
}
func (l stuckRelease) Release(context.Context) error { <-l.never; return nil }

// Issue #27: a stall says in which call of the lock it stopped — A's
// Release here — not only whose it was.
func TestStallNamesTheCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), leaktest.BubbleHost)
	shortStall(t, 50*time.Millisecond)
	never := make(chan struct{})
	defer close(never)
	info := lockimpl.Info{Name: "stuck-release", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return stuckRelease{env, never} }}
	_, err := Run(model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{})
		tl.RunToEnd()
	}, info)
	if err == nil || !strings.Contains(err.Error(), "stalled: A (in its lock's Release) did not reach") {
		t.Fatalf("err = %v, want a stall naming A's Release", err)
	}
}

// shortStall makes the stall timeout d for the test: a stall is then seen
// in milliseconds.
func shortStall(t *testing.T, d time.Duration) {
	old := engine.StallTimeout
	engine.StallTimeout = d
	t.Cleanup(func() { engine.StallTimeout = old })
}

// spinner is lock code that, on its first call, computes until freed
// without a Redis command, a sleep or a block: a stall while it spins, and
// then it comes back.
type spinner struct {
	free  *atomic.Bool
	spins *int
}

func (s spinner) TryAcquire(context.Context) (bool, error) {
	for *s.spins == 0 && !s.free.Load() {
	}
	*s.spins++
	return false, nil
}
func (spinner) Release(context.Context) error { return nil }

// A run given up for a stall while its lock code still computes is the
// caller's no more: the scheduler, going on once that code returns, fails
// the run and records it on its own goroutine, and RunOn has already read
// what it will ever read (CI's race detector once saw RunOn read the
// world's error while the wedged scheduler wrote it).
func TestStallThenComeBackIsNoRace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), leaktest.BubbleHost)
	shortStall(t, 20*time.Millisecond)
	// Freed by a goroutine of its own, started before the run: a free that
	// followed Run's return (or a time.AfterFunc, whose goroutine may be
	// started by this one's) would order RunOn's reads before the
	// scheduler's writes, and hide the race.
	quick := func(tl *Timeline) { tl.Client("A", model.Program{}); tl.RunToEnd() }
	if _, err := Run(model.Setup{}, quick, impl(t, "uuid-lua")); err != nil {
		t.Fatal(err) // the bubble host now runs: it is not the run's
	}
	before := runtime.NumGoroutine()
	free := new(atomic.Bool)
	go func() {
		time.Sleep(200 * time.Millisecond)
		free.Store(true)
	}()
	info := lockimpl.Info{Name: "spinner", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return spinner{free, new(int)} }}
	_, err := Run(model.Setup{}, quick, info)
	if err == nil || !strings.Contains(err.Error(), "stalled: A (in its lock's TryAcquire)") {
		t.Fatalf("err = %v, want a stall naming A", err)
	}
	// Wait for the run's end without synchronising with it (goleak's
	// wait does), so that the race detector can see a write of the
	// scheduler's after RunOn's read.
	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
}

// forever is lock code that computes until the test ends (foreverFree),
// as for {} in TryAcquire would for good.
type forever struct{}

var foreverFree atomic.Bool

func (forever) TryAcquire(context.Context) (bool, error) {
	for !foreverFree.Load() { // foreverLine
	}
	return false, nil
}
func (forever) Release(context.Context) error { return nil }

// foreverLine is the line of forever's loop.
var foreverLine = func() int {
	_, file, _, _ := runtime.Caller(0)
	src, _ := os.ReadFile(file)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "for !foreverFree.Load() { // foreverLine") {
			return i + 1
		}
	}
	return 0
}()

// A stall names the line the lock code spins on, as a blocked call's
// error names the line it waits on (#38, item 8).
func TestStallNamesTheLine(t *testing.T) {
	shortStall(t, 50*time.Millisecond)
	foreverFree.Store(false)
	t.Cleanup(func() { foreverFree.Store(true) })
	info := lockimpl.Info{Name: "forever", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock { return forever{} }}
	_, err := Run(model.Setup{}, func(tl *Timeline) { tl.Client("A", model.Program{}); tl.RunToEnd() }, info)
	want := fmt.Sprintf("stalled: A (in its lock's TryAcquire) did not reach a Redis command, a sleep or a program point, nor block, within 50ms of wall time, at github.com/lockstep-sim/lockstep/scenarios/sim.forever.TryAcquire (sim_test.go:%d): it runs without end", foreverLine)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}
