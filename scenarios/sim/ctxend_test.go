package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// timed is a single-instance lock that bounds each command with a context
// timeout of its own, as a per-node timeout does, sent from the caller's
// goroutine or, with flight, from one it starts.
type timed struct {
	env    lockimpl.Env
	flight bool
}

func (l *timed) TryAcquire(ctx context.Context) (bool, error) {
	var ok bool
	var err error
	set := func() {
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		ok, err = l.env.Nodes[0].SetNX(ctx, l.env.Key, "A#1", l.env.TTL).Result()
	}
	if !l.flight {
		set()
		return ok, err
	}
	done := make(chan struct{})
	go func() { defer close(done); set() }()
	<-done
	return ok, err
}

func (l *timed) Release(ctx context.Context) error { return l.env.Nodes[0].Del(ctx, l.env.Key).Err() }

// A command on its way to a slow server whose context times out: the
// client sees the timeout at the deadline, and the command still reaches
// the server when it was due, and runs there, under an actor of its own
// whose reply nobody reads.
func TestTimeoutOnTheWayToASlowServer(t *testing.T) {
	for _, flight := range []bool{false, true} {
		info := lockimpl.Info{Name: "timed", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return &timed{env: env, flight: flight} }}
		tr, err := Run(model.Setup{}, func(tl *Timeline) {
			tl.Slow(0, 5*time.Second)
			tl.Client("A", model.Program{Attempts: 1})
			tl.RunToEnd()
		}, info)
		if err != nil {
			t.Fatal(err)
		}
		// The orphan is named after the client and the server, as a flight is.
		equal(t, commands(tr), []string{
			"0.1s A" + map[bool]string{false: "", true: "/redis-1"}[flight] + " redis-1 SET lock:product:1001 A#1 EX 30 NX → (error) context deadline exceeded",
			"5s A/redis-1 redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		})
		var texts []string
		for _, e := range tr.Events {
			if e.Kind == trace.KindCommand {
				texts = append(texts, e.Text.EN+" | "+e.Text.ZH)
			}
		}
		who := map[bool]string{false: "A", true: "A/redis-1"}[flight]
		whoZH := map[bool]string{false: "A ", true: "A 在 redis-1 上"}[flight]
		equal(t, texts, []string{
			who + "'s acquire: A stops waiting after 0.1s (context deadline exceeded): the command is still on its way to redis-1 and reaches it at t=5s" +
				" | " + whoZH + "加锁：A 等了 0.1 秒没等到应答，不再等了（客户端报错：`context deadline exceeded`）；命令仍在发往 redis-1 的路上，第 5 秒才到达",
			"A/redis-1's acquire (A stopped waiting for it at t=0.1s; it arrives only now, and nobody reads the reply): lock:product:1001 = A#1 is written (TTL 30s)" +
				" | A 在 redis-1 上加锁（A 在第 0.1 秒已不再等它；命令现在才到达，应答没有人读）：写入 lock:product:1001 = A#1（TTL 30 秒）",
		})
	}
}

// A process that is stopped (paused, here) runs nothing: a deadline that
// passes meanwhile is seen when it goes on again, not while it is stopped.
// Commands parked at the gate then fail without being sent, and the trace
// says so.
func TestTimeoutDuringAPauseIsSeenOnResume(t *testing.T) {
	tr := run(t, model.Setup{Nodes: 3}, "redlock", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Second, Attempts: 1})
		a.HoldAfter(trace.OpAcquire, 1)
		tl.RunUntil(time.Second)
		a.Pause()
		a.Unhold()
		tl.RunUntil(20 * time.Second)
		a.Resume()
		tl.RunToEnd()
	})
	var got []string
	for _, c := range commands(tr) {
		if strings.Contains(c, " SET ") {
			got = append(got, c)
		}
	}
	equal(t, got, []string{
		"0s A/redis-1 redis-1 SET lock:product:1001 A#1 EX 30 NX → OK",
		"20s A/redis-2 redis-2 SET lock:product:1001 A#1 EX 30 NX → (error) context deadline exceeded",
		"20s A/redis-3 redis-3 SET lock:product:1001 A#1 EX 30 NX → (error) context deadline exceeded",
	})
	if !hasText(tr, "A/redis-2's acquire: its timeout passed before A sent it (context deadline exceeded): the command is never sent") {
		t.Errorf("the unsent SET is not said:\n%s", strings.Join(texts(tr), "\n"))
	}
}
