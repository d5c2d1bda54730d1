package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// fanOut is a majority lock that asks its nodes at once, each from a
// goroutine of its own started with a go statement, and waits for them all:
// the shape of redsync. It releases on every node. With viaFan it starts
// them through Env.Fan instead, as lockimpl's Redlock does.
type fanOut struct {
	env    lockimpl.Env
	token  string
	viaFan bool
}

func (l *fanOut) each(ctx context.Context, f func(i int) bool) int {
	if l.viaFan {
		ok := make([]bool, len(l.env.Nodes))
		l.env.Fan(ctx, len(l.env.Nodes), func(ctx context.Context, i int) { ok[i] = f(i) })
		n := 0
		for _, o := range ok {
			if o {
				n++
			}
		}
		return n
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for i := range l.env.Nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if f(i) {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return n
}

func (l *fanOut) TryAcquire(ctx context.Context) (bool, error) {
	l.token = l.env.Token()
	n := l.each(ctx, func(i int) bool {
		ok, _ := l.env.Nodes[i].SetNX(ctx, l.env.Key, l.token, l.env.TTL).Result()
		return ok
	})
	if n > len(l.env.Nodes)/2 {
		return true, nil
	}
	_ = l.Release(ctx)
	return false, nil
}

func (l *fanOut) Release(ctx context.Context) error {
	n := l.each(ctx, func(i int) bool {
		v, _ := l.env.Nodes[i].Eval(ctx, `-- release
if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`,
			[]string{l.env.Key}, l.token).Int()
		return v == 1
	})
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

var (
	fanOutInfo = lockimpl.Info{Name: "fan-out", Nodes: 3, New: func(env lockimpl.Env) lockimpl.Lock { return &fanOut{env: env} }}
	viaFanInfo = lockimpl.Info{Name: "via-fan", Nodes: 3, New: func(env lockimpl.Env) lockimpl.Lock { return &fanOut{env: env, viaFan: true} }}
)

// runA runs one client, A, with a second of work, against info.
func runA(info lockimpl.Info) (*trace.Trace, error) {
	return Run(model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.RunToEnd()
	}, info)
}

// bothFans runs test for the lock that starts its goroutines itself and for
// the one that starts them through Env.Fan: the engine schedules both alike.
func bothFans(t *testing.T, test func(t *testing.T, info lockimpl.Info)) {
	for _, info := range []lockimpl.Info{fanOutInfo, viaFanInfo} {
		t.Run(info.Name, func(t *testing.T) { test(t, info) })
	}
}

// A lock that asks its nodes from goroutines of its own runs: each command
// is a step of its own, named after the client and the node, in node order,
// and the trace is the same every time.
func TestFlightsFromTheLocksOwnGoroutines(t *testing.T) {
	bothFans(t, func(t *testing.T, info lockimpl.Info) {
		script := func(tl *Timeline) {
			tl.Client("A", model.Program{Work: time.Second})
			tl.Client("B", model.Program{Start: 500 * time.Millisecond, Retry: 2 * time.Second, Work: time.Second})
			tl.RunToEnd()
		}
		first, err := Run(model.Setup{}, script, info)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, commands(first), []string{
			"0s A/redis-1 redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
			"0s A/redis-2 redis-2 SET lock:product:1001 A#1 EX 30 NX → OK",
			"0s A/redis-3 redis-3 SET lock:product:1001 A#1 EX 30 NX → OK",
			"0.5s B/redis-1 redis-1 SET lock:product:1001 B#1 EX 30 NX → (nil)",
			"0.5s B/redis-2 redis-2 SET lock:product:1001 B#1 EX 30 NX → (nil)",
			"0.5s B/redis-3 redis-3 SET lock:product:1001 B#1 EX 30 NX → (nil)",
			"0.5s B/redis-1 redis-1 EVAL <release> 1 lock:product:1001 B#1 → (integer) 0",
			"0.5s B/redis-2 redis-2 EVAL <release> 1 lock:product:1001 B#1 → (integer) 0",
			"0.5s B/redis-3 redis-3 EVAL <release> 1 lock:product:1001 B#1 → (integer) 0",
			"1s A/redis-1 redis-1 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
			"1s A/redis-2 redis-2 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
			"1s A/redis-3 redis-3 EVAL <release> 1 lock:product:1001 A#1 → (integer) 1",
			"2.5s B/redis-1 redis-1 SET lock:product:1001 B#2 EX 30 NX → OK",
			"2.5s B/redis-2 redis-2 SET lock:product:1001 B#2 EX 30 NX → OK",
			"2.5s B/redis-3 redis-3 SET lock:product:1001 B#2 EX 30 NX → OK",
			"3.5s B/redis-1 redis-1 EVAL <release> 1 lock:product:1001 B#2 → (integer) 1",
			"3.5s B/redis-2 redis-2 EVAL <release> 1 lock:product:1001 B#2 → (integer) 1",
			"3.5s B/redis-3 redis-3 EVAL <release> 1 lock:product:1001 B#2 → (integer) 1",
		})
		if broken := brokenInvariants(first); len(broken) > 0 {
			t.Errorf("broken: %v", broken)
		}
		want := traceText(first)
		for range 20 {
			tr, err := Run(model.Setup{}, script, info)
			if err != nil {
				t.Fatal(err)
			}
			if got := traceText(tr); got != want {
				t.Fatalf("the trace changed between runs:\n%s\nvs\n%s", got, want)
			}
		}
	})
}

func traceText(tr *trace.Trace) string {
	var b strings.Builder
	for _, e := range tr.Events {
		b.WriteString(narrate.Secs(e.T) + " " + e.Actor + " " + e.Server + " " + e.Text.EN + "\n")
	}
	return b.String()
}

func brokenInvariants(tr *trace.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindViolation {
			out = append(out, e.Invariant)
		}
	}
	return out
}

// In the explorer each command of a fan-out is a move of its own: the order
// in which the nodes answer is what the search varies.
func TestFlightsAreMoves(t *testing.T) {
	bothFans(t, func(t *testing.T, info lockimpl.Info) {
		s, err := NewStepper(model.Setup{}, []model.Program{{Work: time.Second}, {Work: time.Second}}, info, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Do("A"); err != nil {
			t.Fatal(err)
		}
		ids := func() []string {
			var out []string
			for _, m := range s.Moves() {
				out = append(out, m.ID)
			}
			return out
		}
		got := ids()
		for _, want := range []string{"A/redis-1", "A/redis-2", "A/redis-3", "B"} {
			if !slices.Contains(got, want) {
				t.Fatalf("moves %v lack %s", got, want)
			}
		}
		// Node 3 first, then B's whole fan-out, then the rest of A's.
		for _, id := range []string{"A/redis-3", "B", "B/redis-1", "B/redis-2", "A/redis-1", "A/redis-2", "B/redis-3"} {
			if err := s.Do(id); err != nil {
				t.Fatalf("%s: %v (moves %v)", id, err, ids())
			}
		}
		var order []string
		for _, c := range commands(s.Trace()) {
			order = append(order, strings.Fields(c)[1])
		}
		equal(t, order, []string{"A/redis-3", "B/redis-1", "B/redis-2", "A/redis-1", "A/redis-2", "B/redis-3"})
	})
}

// Cancelled commands: a library's own timeout that ends a command parked at
// the gate leaves no stray go-ahead; the client's next command waits its
// turn.
type cancelling struct{ env lockimpl.Env }

func (l *cancelling) TryAcquire(ctx context.Context) (bool, error) {
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = l.env.Nodes[0].SetNX(cctx, l.env.Key, "x", l.env.TTL).Err()
	}()
	cancel() // before or after the scheduler lets it go: either is fine
	wg.Wait()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, l.env.Token(), l.env.TTL).Result()
	return ok, err
}
func (l *cancelling) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}

func TestCancelledFlightLeavesNoStrayGoAhead(t *testing.T) {
	info := lockimpl.Info{Name: "cancelling", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return &cancelling{env: env} }}
	for range 50 {
		tr, err := runA(info)
		if err != nil {
			t.Fatal(err)
		}
		cmds := commands(tr)
		if len(cmds) < 2 || !strings.Contains(cmds[len(cmds)-1], " DEL ") {
			t.Fatalf("commands: %v", cmds)
		}
	}
}

// waiting sends from a goroutine of its own, then waits for something no
// goroutine of the run will do: a channel it made and nobody closes.
type waiting struct {
	env     lockimpl.Env
	release chan struct{}
}

func (l *waiting) TryAcquire(ctx context.Context) (bool, error) {
	go func() { _ = l.env.Nodes[0].SetNX(ctx, l.env.Key, "x", l.env.TTL).Err() }()
	<-l.release // waitingLine
	return false, errors.New("released")
}
func (l *waiting) Release(context.Context) error { return nil }

// waitingLine is the line of waiting's wait.
var waitingLine = func() int {
	_, file, _, _ := runtime.Caller(0)
	src, _ := os.ReadFile(file)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "<-l.release // waitingLine") {
			return i + 1
		}
	}
	return 0
}()

// Lock code that waits for nothing the run will do is an error that says
// so, at once, and where, not a stall after ten seconds: every goroutine of the run is
// blocked, no timer is set, and none of its commands is at the gate.
func TestLockCodeThatWaitsForNothingIsAnError(t *testing.T) {
	info := lockimpl.Info{Name: "waiting", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		return &waiting{env: env, release: make(chan struct{})}
	}}
	start := time.Now()
	_, err := runA(info)
	if err == nil || !strings.Contains(err.Error(), "A's TryAcquire is blocked in the lock implementation waiting, at github.com/lockstep-sim/lockstep/scenarios/sim.(*waiting).TryAcquire (flight_test.go:"+fmt.Sprint(waitingLine)+"), and nothing in the run can wake it") {
		t.Fatalf("err = %v", err)
	}
	// Half the stall timeout: an answer at once, not after it, also on a
	// loaded machine.
	if d := time.Since(start); d > engine.StallTimeout/2 {
		t.Errorf("took %s; want it well before the stall timeout (%s)", d, engine.StallTimeout)
	}
}

// A Maker that blocks on something outside the run is the run's error,
// after the stall timeout.
func TestMakerThatBlocksIsAnError(t *testing.T) {
	shortStall(t, 100*time.Millisecond)
	release := make(chan struct{})
	defer close(release)
	info := lockimpl.Info{Name: "blocks-in-new", Nodes: 1, New: func(lockimpl.Env) lockimpl.Lock {
		<-release
		return nil
	}}
	_, err := runA(info)
	if err == nil || !strings.Contains(err.Error(), "stalled: the lock implementation blocks-in-new's New did not reach a Redis command, a sleep or a program point, nor block, within 100ms") {
		t.Fatalf("err = %v", err)
	}
}

// A call of Env.Fan that panics fails the run and names the client; the
// process goes on.
func TestFanPanicFailsTheRun(t *testing.T) {
	info := lockimpl.Info{Name: "fan-panics", Nodes: 3, New: func(env lockimpl.Env) lockimpl.Lock {
		return &fanPanics{env: env}
	}}
	_, err := runA(info)
	if err == nil || !strings.Contains(err.Error(), "A: the lock implementation fan-panics panicked in a call of Env.Fan: node 2") {
		t.Fatalf("err = %v", err)
	}
}

type fanPanics struct{ env lockimpl.Env }

func (l *fanPanics) TryAcquire(ctx context.Context) (bool, error) {
	l.env.Fan(ctx, len(l.env.Nodes), func(ctx context.Context, i int) {
		if i == 1 {
			panic("node 2")
		}
		_ = l.env.Nodes[i].SetNX(ctx, l.env.Key, "x", l.env.TTL).Err()
	})
	return true, nil
}
func (l *fanPanics) Release(context.Context) error { return nil }

// deepFan sends from a call of Env.Fan whose stack is deeper than the
// gate's first look at it (128 frames): the call is still known as one.
type deepFan struct{ env lockimpl.Env }

func (l *deepFan) TryAcquire(ctx context.Context) (bool, error) {
	var ok atomic.Int32
	token := l.env.Token() // before the calls: Token is not for concurrent use
	l.env.Fan(ctx, len(l.env.Nodes), func(ctx context.Context, i int) {
		var down func(n int)
		down = func(n int) {
			if n > 0 {
				down(n - 1)
				return
			}
			if l.env.Nodes[i].SetNX(ctx, l.env.Key, token, l.env.TTL).Val() {
				ok.Add(1)
			}
		}
		down(300)
	})
	return ok.Load() == int32(len(l.env.Nodes)), nil
}
func (l *deepFan) Release(context.Context) error { return nil }

func TestFanCallKnownAtAnyDepth(t *testing.T) {
	info := lockimpl.Info{Name: "deep-fan", Nodes: 3, New: func(env lockimpl.Env) lockimpl.Lock { return &deepFan{env: env} }}
	tr, err := runA(info)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(tr); len(got) != 3 || !strings.HasPrefix(got[2], "0s A/redis-3 ") {
		t.Errorf("commands = %q, want three flights", got)
	}
}
