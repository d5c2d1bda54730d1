package scenarios

import (
	"context"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// tickerWatchdog is a lock as teams write it: SET NX with a token, and a
// watchdog started through Env.Go that renews the lease on a time.Ticker
// until Release stops it.
type tickerWatchdog struct {
	env   lockimpl.Env
	mu    sync.Mutex
	token string
	stop  chan struct{}
}

func (l *tickerWatchdog) TryAcquire(ctx context.Context) (bool, error) {
	token := l.env.Token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if err != nil || !ok {
		return false, err
	}
	stop := make(chan struct{})
	l.mu.Lock()
	l.token, l.stop = token, stop
	l.mu.Unlock()
	l.env.Go(ctx, "watchdog", func(ctx context.Context) {
		tick := time.NewTicker(l.env.TTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if l.env.Nodes[0].Expire(ctx, l.env.Key, l.env.TTL).Err() != nil {
					return
				}
			}
		}
	})
	return true, nil
}

func (l *tickerWatchdog) Release(ctx context.Context) error {
	l.mu.Lock()
	token, stop := l.token, l.stop
	l.stop = nil
	l.mu.Unlock()
	if stop != nil {
		close(stop)
	}
	n, err := l.env.Nodes[0].Eval(ctx, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`, []string{l.env.Key}, token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

// jitterRetry tries SET NX inside one TryAcquire until it gets the lock or
// its context ends, sleeping a math/rand jittered 1 to 5 s between tries,
// as a library's LockContext does.
type jitterRetry struct {
	env   lockimpl.Env
	token string
}

func (l *jitterRetry) TryAcquire(ctx context.Context) (bool, error) {
	token := l.env.Token()
	for ctx.Err() == nil {
		ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
		if err != nil {
			return false, err
		}
		if ok {
			l.token = token
			return true, nil
		}
		time.Sleep(time.Second + time.Duration(rand.Intn(4000))*time.Millisecond)
	}
	return false, ctx.Err()
}

func (l *jitterRetry) Release(ctx context.Context) error {
	n, err := l.env.Nodes[0].Eval(ctx, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`, []string{l.env.Key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

var (
	tickerWatchdogInfo = lockimpl.Info{Name: "ticker-watchdog", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return &tickerWatchdog{env: env} }}
	jitterRetryInfo    = lockimpl.Info{Name: "jitter-retry", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return &jitterRetry{env: env} }}
)

// A lock parked on a timer that is set is not blocked for good, however far
// past the lesson's end the timer falls (#38, item 5): reentrant-call ends
// while ticker-watchdog's watchdog waits for its next tick, and every lesson
// ends while jitter-retry may sleep between tries. Both are judged, with no
// "nothing in the run can wake it". Before, reentrant-call × ticker-watchdog
// failed so every time.
func TestTimerPastTheEndIsNotBlocked(t *testing.T) {
	s, err := Lookup("reentrant-call")
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := s.Run(tickerWatchdogInfo); err != nil {
		t.Errorf("reentrant-call × ticker-watchdog: %v", err)
	} else if len(tr.Events) == 0 {
		t.Error("reentrant-call × ticker-watchdog: no events")
	}
	// A holds the lock past the run's horizon; B's retry loop sleeps
	// across it, a jittered 1 to 5 s after its last try.
	for run := 0; run < 10; run++ {
		_, err := sim.Run(sim.Setup{Horizon: 20 * time.Second}, func(tl *sim.Timeline) {
			tl.Client("A", sim.Program{Work: time.Minute})
			tl.RunUntil(time.Second)
			tl.Client("B", sim.Program{Work: time.Second})
			tl.RunToEnd()
		}, jitterRetryInfo)
		if err != nil {
			t.Fatalf("run %d, jitter-retry: %v", run, err)
		}
	}
}
