package lockimpl_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// stall makes a node answer nothing while on is set: a command waits until
// its context ends, as one to a node that is slow or gone does.
type stall struct{ on *atomic.Bool }

func (stall) DialHook(next redis.DialHook) redis.DialHook { return next }

func (s stall) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if s.on.Load() {
			<-ctx.Done()
			return ctx.Err()
		}
		return next(ctx, cmd)
	}
}

func (stall) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// stallNodes makes nodes of h answer nothing while the returned flag is set.
func stallNodes(h *handle, nodes ...int) *atomic.Bool {
	on := &atomic.Bool{}
	on.Store(true)
	for _, i := range nodes {
		h.env.Nodes[i].AddHook(stall{on})
	}
	return on
}

// Redlock gives each node's command a timeout of its own, TTL/200 (150ms
// for the tests' 30s lease): three nodes that do not answer cost the
// attempt that long (its SETs, then its release on every node), not the
// lease. The next attempt draws a new token: the commands that timed out
// may still reach their nodes. The handle runs in a bubble, so the time
// taken is exact.
func TestRedlockNodeTimeout(t *testing.T) {
	for _, name := range []string{"redlock", "redlock-fenced"} {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")
			slow := stallNodes(a, 1, 2, 3)
			var took time.Duration
			a.do(t.Context(), func() {
				start := time.Now()
				mustNotAcquire(t, a.Lock)
				took = time.Since(start)
			})
			if want := 2 * 150 * time.Millisecond; took != want {
				t.Errorf("the attempt took %s; want two node timeouts of 150ms (SET, then release), %s", took, want)
			}
			slow.Store(false)
			mustAcquire(t, a)
			assertHolder(t, cl, "A#2")
			if n := a.tokens.Drawn(); n != 2 {
				t.Errorf("drew %d tokens, want a new one after the attempt with timeouts", n)
			}
		})
	}
}

// A node that answers late is not a node that says nothing: the timeout
// counts the lock's time, which stands still while the command is on the
// network. Three nodes whose answers come after a wall-clock wait longer
// than the node timeout still give Redlock its majority (before the handles
// ran in bubbles, a loaded CI machine failed a Redlock test this way).
func TestRedlockSlowAnswerIsNoTimeout(t *testing.T) {
	cl := clusterFor(t, "redlock")
	a := cl.handle(t, "redlock", "A")
	late := make(chan struct{}) // made outside the bubble: waiting on it is not the bubble's
	for _, i := range []int{1, 2, 3} {
		a.env.Nodes[i].AddHook(delay{late})
	}
	wall := time.AfterFunc(300*time.Millisecond, func() { close(late) })
	defer wall.Stop()
	mustAcquire(t, a)
	assertHolder(t, cl, "A#1")
}

// delay holds every command until its channel is closed.
type delay struct{ until <-chan struct{} }

func (delay) DialHook(next redis.DialHook) redis.DialHook { return next }

func (d delay) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		<-d.until
		return next(ctx, cmd)
	}
}

func (delay) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// redlock-no-validity has no per-node timeout: it waits for a silent node
// as long as its caller's context lets it.
func TestRedlockNoValidityWaits(t *testing.T) {
	cl := clusterFor(t, "redlock-no-validity")
	a := cl.handle(t, "redlock-no-validity", "A")
	stallNodes(a, 1, 2, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	if ok, _ := a.TryAcquire(ctx); ok {
		t.Fatal("acquired with two nodes of five")
	}
	// The deadline, not a stopwatch: the context's 500ms run from its
	// creation, so a time taken after it reads a little less on a busy
	// machine (498ms in a CI run).
	if ctx.Err() == nil {
		t.Error("gave up while its caller's context was still live; want it to wait for the silent nodes until the deadline")
	}
}
