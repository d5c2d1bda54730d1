package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Issue #38, "library retries": a lock whose TryAcquire is a library's own
// retry loop (redsync's LockContext: WithTries tries, WithRetryDelay
// apart) runs that loop inside each of the lesson's attempts. The two
// multiply: B, with 2 attempts 10s apart and 3 library tries 1s apart,
// asks 6 times, at 1, 2 and 3s, then 10s after its first attempt gave
// up, at 13, 14 and 15s, and gives up at 15s, not at 11s as a lock of one
// try a call would (lockimpl's redsync adapter takes WithTries(1) for
// that reason). docs/lessons.md says how the two combine.
func TestLibraryRetriesStackOnTheLessons(t *testing.T) {
	tr, err := sim.Run(sim.Setup{}, func(tl *sim.Timeline) {
		tl.Client("A", sim.Program{Work: 40 * time.Second})
		tl.Client("B", sim.Program{Start: time.Second, Attempts: 2, Retry: 10 * time.Second})
		tl.RunToEnd()
	}, redsyncTries(3, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	gaveUp := ""
	for _, e := range tr.Events {
		if strings.HasPrefix(e.Actor, "B") && e.Kind == trace.KindCommand && strings.HasPrefix(e.Command, "SET ") {
			sets = append(sets, narrate.Secs(e.T))
		}
		if e.Actor == "B" && e.Kind == trace.KindBelief && strings.Contains(e.Text.EN, "gives up") {
			gaveUp = narrate.Secs(e.T)
		}
	}
	if got, want := strings.Join(sets, " "), "1s 2s 3s 13s 14s 15s"; got != want {
		t.Errorf("B's SETs at %s, want %s: the lesson's 2 attempts × redsync's 3 tries", got, want)
	}
	if gaveUp != "15s" {
		t.Errorf("B gives up at %q, want 15s", gaveUp)
	}
}

// redsyncTries is redsync on one node whose TryAcquire is LockContext,
// tries tries delay apart (redsync's defaults: 32 tries, 50-250 ms apart
// drawn from math/rand).
func redsyncTries(tries int, delay time.Duration) lockimpl.Info {
	return lockimpl.Info{Name: "redsync-tries", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		m := redsync.New([]redsyncredis.Pool{goredis.NewPool(env.Nodes[0])}...).NewMutex(env.Key,
			redsync.WithExpiry(env.TTL), redsync.WithTries(tries), redsync.WithRetryDelay(delay), redsync.WithTimeoutFactor(0.01),
			redsync.WithGenValueFunc(func() (string, error) { return env.Token(), nil }))
		return &lockContext{mutexLock{m: m}}
	}}
}

// lockContext takes the lock with LockContext, the library's retry loop.
type lockContext struct{ mutexLock }

func (l *lockContext) TryAcquire(ctx context.Context) (bool, error) {
	l.held = l.m.LockContext(ctx) == nil
	return l.held, nil
}
