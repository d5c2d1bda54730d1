package sim

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// quorums lists the events that count a multi-node attempt, each as
// "T actor: EN | ZH", and checks that each comes right before the end of its
// attempt: the same client's "holds" or refusal.
func quorums(t *testing.T, tr *trace.Trace) []string {
	t.Helper()
	var out []string
	for i, e := range tr.Events {
		if e.Kind != trace.KindBelief || !strings.Contains(e.Text.EN, " nodes said OK") {
			continue
		}
		out = append(out, narrate.Secs(e.T)+" "+e.Text.EN+" | "+e.Text.ZH)
		if i+1 == len(tr.Events) {
			t.Errorf("step %d: the count is the last event", i)
			continue
		}
		next := tr.Events[i+1]
		if next.Kind != trace.KindBelief || next.Actor != e.Actor ||
			!(strings.Contains(next.Text.EN, "holds the lock") || strings.Contains(next.Text.EN, "get the lock") ||
				strings.Contains(next.Text.EN, "refused") || strings.Contains(next.Text.EN, "nested call has the lock")) {
			t.Errorf("step %d: the count is followed by %s %q, not the end of %s's attempt", i, next.Kind, next.Text.EN, e.Actor)
		}
	}
	return out
}

// Redlock on five nodes: A, cut off from redis-4 and redis-5, gets OK from
// three — a majority; B, with redis-1..3 down, gets OK from two — not one.
func TestQuorumIsCounted(t *testing.T) {
	tr := run(t, model.Setup{}, "redlock", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Second})
		a.Partition(3, 4)
		tl.RunUntil(2 * time.Second)
		tl.StopServer(0)
		tl.StopServer(1)
		tl.StopServer(2)
		tl.Client("B", model.Program{Start: 5 * time.Second, Attempts: 1})
		tl.RunToEnd()
	})
	equal(t, quorums(t, tr), []string{
		"0s A: 3 of 5 nodes said OK — a majority (3 needed); the SET failed on redis-4 and redis-5;" +
			" validity = 30s TTL − 0s elapsed − 0.302s drift = 29.698s" +
			" | A：5 个节点中 3 个返回 OK——达到多数派（需要 3 个）；发往 redis-4、redis-5 的 SET 失败；" +
			"有效期 = TTL 30 秒 − 耗时 0 秒 − 时钟漂移 0.302 秒 = 29.698 秒",
		"5s B: 2 of 5 nodes said OK — not a majority (3 needed); the SET failed on redis-1, redis-2 and redis-3" +
			" | B：5 个节点中 2 个返回 OK——未达到多数派（需要 3 个）；发往 redis-1、redis-2、redis-3 的 SET 失败",
	})
	for _, e := range tr.Events {
		if strings.Contains(e.Text.EN, " nodes said OK") {
			if want := "3/5 OK: majority"; e.Actor == "A" && e.Short.EN != want {
				t.Errorf("A's label = %q, want %q", e.Short.EN, want)
			}
			if want := "2/5 OK：不到多数派"; e.Actor == "B" && e.Short.ZH != want {
				t.Errorf("B's label = %q, want %q", e.Short.ZH, want)
			}
		}
	}
}

// A node that answers nil (the key is there) is a no, and is not named. The
// count is per attempt: each of B's retries starts from zero.
func TestQuorumCountsEachAttempt(t *testing.T) {
	tr := run(t, model.Setup{Nodes: 3}, "redlock", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 15 * time.Second})
		tl.Client("B", model.Program{Start: time.Second, Retry: 10 * time.Second})
		tl.RunToEnd()
	})
	equal(t, quorums(t, tr), []string{
		"0s A: 3 of 3 nodes said OK — a majority (2 needed); validity = 30s TTL − 0s elapsed − 0.302s drift = 29.698s" +
			" | A：3 个节点中 3 个返回 OK——达到多数派（需要 2 个）；有效期 = TTL 30 秒 − 耗时 0 秒 − 时钟漂移 0.302 秒 = 29.698 秒",
		"1s B: 0 of 3 nodes said OK — not a majority (2 needed) | B：3 个节点中 0 个返回 OK——未达到多数派（需要 2 个）",
		"11s B: 0 of 3 nodes said OK — not a majority (2 needed) | B：3 个节点中 0 个返回 OK——未达到多数派（需要 2 个）",
		"21s B: 3 of 3 nodes said OK — a majority (2 needed); validity = 30s TTL − 0s elapsed − 0.302s drift = 29.698s" +
			" | B：3 个节点中 3 个返回 OK——达到多数派（需要 2 个）；有效期 = TTL 30 秒 − 耗时 0 秒 − 时钟漂移 0.302 秒 = 29.698 秒",
	})
}

// A single-instance lock has no majority to count.
func TestQuorumNotForOneNode(t *testing.T) {
	tr := run(t, model.Setup{}, "set-nx-ex", func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 5 * time.Second})
		tl.Client("B", model.Program{Start: time.Second, Retry: 10 * time.Second})
		tl.RunToEnd()
	})
	if q := quorums(t, tr); len(q) != 0 {
		t.Errorf("a single-node lock's trace counts nodes: %v", q)
	}
}

// spawnLock asks every node at once, from a goroutine per node started with
// Env.Go, and holds the lock on a majority; it never releases on a
// minority, which the test does not need.
type spawnLock struct {
	env lockimpl.Env
	tok string
}

func (f *spawnLock) TryAcquire(ctx context.Context) (bool, error) {
	f.tok = f.env.Token()
	var mu sync.Mutex
	ok := 0
	for i, c := range f.env.Nodes {
		f.env.Go(ctx, fmt.Sprintf("redis-%d", i+1), func(ctx context.Context) {
			if set, err := c.SetNX(ctx, f.env.Key, f.tok, f.env.TTL).Result(); err == nil && set {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	// The goroutines run while this one sleeps.
	if err := f.env.Clock.Sleep(ctx, time.Millisecond); err != nil {
		return false, err
	}
	mu.Lock()
	defer mu.Unlock()
	return ok > len(f.env.Nodes)/2, nil
}

func (f *spawnLock) Release(ctx context.Context) error {
	for _, c := range f.env.Nodes {
		c.Del(ctx, f.env.Key)
	}
	return nil
}

// Commands a client's own goroutines send ("A.redis-2", "A/redis-2") count for it: those
// started with Env.Go, and those the lock code starts with a go statement
// (fanOut, shaped like redsync).
func TestQuorumCountsTheClientsGoroutines(t *testing.T) {
	in := lockimpl.Info{Name: "spawn", Nodes: 3, New: func(env lockimpl.Env) lockimpl.Lock { return &spawnLock{env: env} }}
	tr, err := Run(model.Setup{}, func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: time.Second})
		a.Partition(2)
		tl.RunToEnd()
	}, in)
	if err != nil {
		t.Fatal(err)
	}
	var actors []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand && strings.HasPrefix(e.Command, "SET") {
			actors = append(actors, e.Actor)
		}
	}
	equal(t, actors, []string{"A.redis-1", "A.redis-2", "A.redis-3"})
	equal(t, quorums(t, tr), []string{
		"0.001s A: 2 of 3 nodes said OK — a majority (2 needed); the SET failed on redis-3" +
			" | A：3 个节点中 2 个返回 OK——达到多数派（需要 2 个）；发往 redis-3 的 SET 失败",
	})

	tr, err = Run(model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Start: 500 * time.Millisecond, Attempts: 1})
		tl.RunToEnd()
	}, fanOutInfo)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, quorums(t, tr), []string{
		"0s A: 3 of 3 nodes said OK — a majority (2 needed) | A：3 个节点中 3 个返回 OK——达到多数派（需要 2 个）",
		"0.5s B: 0 of 3 nodes said OK — not a majority (2 needed) | B：3 个节点中 0 个返回 OK——未达到多数派（需要 2 个）",
	})
}

// A pause between the second and the third node: the acquire takes 33s of a
// 30s lease. Redlock's validity is below zero and the attempt fails;
// without the check, the same majority is a hold.
func TestQuorumSaysTheValidity(t *testing.T) {
	for _, tc := range []struct {
		impl, want string
	}{
		// redlock's per-node timeout passed during the pause: its SET on
		// redis-3 is never sent. Two OKs are a majority of three all the
		// same, and the validity check turns the attempt down.
		{"redlock", "33s A: 2 of 3 nodes said OK — a majority (2 needed); the SET failed on redis-3; validity = 30s TTL − 33s elapsed − 0.302s drift = -3.302s: no time left, so the attempt fails" +
			" | A：3 个节点中 2 个返回 OK——达到多数派（需要 2 个）；发往 redis-3 的 SET 失败；有效期 = TTL 30 秒 − 耗时 33 秒 − 时钟漂移 0.302 秒 = -3.302 秒：已经没有剩余时间，所以这次加锁失败"},
		{"redlock-no-validity", "33s A: 3 of 3 nodes said OK — a majority (2 needed); validity = 30s TTL − 33s elapsed − 0.302s drift = -3.302s: no time left, and the lock reports success anyway" +
			" | A：3 个节点中 3 个返回 OK——达到多数派（需要 2 个）；有效期 = TTL 30 秒 − 耗时 33 秒 − 时钟漂移 0.302 秒 = -3.302 秒：已经没有剩余时间，锁却仍然报告加锁成功"},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			tr := run(t, model.Setup{Nodes: 3}, tc.impl, func(tl *Timeline) {
				a := tl.Client("A", model.Program{Work: time.Second, Attempts: 1})
				a.HoldAfter(trace.OpAcquire, 2)
				tl.RunUntil(time.Second)
				a.Pause()
				a.Unhold()
				tl.RunUntil(33 * time.Second)
				a.Resume()
				tl.RunToEnd()
			})
			equal(t, quorums(t, tr), []string{tc.want})
		})
	}
}
