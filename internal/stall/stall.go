// Package stall holds locks that keep a verdict from being reached, for
// the tests that show a search never passes them (issue #38, items 3 and
// 4): one whose Release blocks for good, one whose every acquire costs the
// CPU time a search cannot afford. Each takes the lock as uuid-lua does
// (SET NX PX with a token, a compare-and-delete script) and is sound but
// for its stall.
package stall

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// release deletes the key only while it still holds the token.
var release = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

type lock struct {
	env   lockimpl.Env
	token string
	// never is a channel nobody closes: stuck's Release waits on it.
	never chan struct{}
	// spin is how long each TryAcquire burns the CPU before it sends.
	spin time.Duration
}

func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	burn(l.spin)
	token := l.env.Token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if ok && err == nil {
		l.token = token
	}
	return ok, err
}

func (l *lock) Release(ctx context.Context) error {
	if l.never != nil {
		<-l.never // StuckLine
	}
	return release.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, l.token).Err()
}

// burn keeps the CPU busy for about d. It counts rounds of a loop
// measured once, outside any bubble, rather than reading the clock: in a
// synctest bubble time.Now stands still while a goroutine runs, and a
// real library's slow acquire (hashing, a big script built on each call)
// costs CPU, not virtual time.
func burn(d time.Duration) {
	n := int64(d) * perMilli.Load() / int64(time.Millisecond)
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink.Store(x)
}

// perMilli is how many rounds of burn's loop take a millisecond here;
// sink keeps the compiler from leaving the loop out.
var perMilli, sink = func() (*atomic.Int64, *atomic.Uint64) {
	var n atomic.Int64
	const rounds = 1 << 20
	start := time.Now()
	x := uint64(1)
	for range rounds {
		x = x*6364136223846793005 + 1442695040888963407
	}
	var s atomic.Uint64
	s.Store(x)
	n.Store(max(1, rounds*int64(time.Millisecond)/max(1, int64(time.Since(start)))))
	return &n, &s
}()

// Stuck is a lock whose Release waits on a channel nobody closes: every
// lesson reports the call blocked, and so must the search.
func Stuck() lockimpl.Info {
	return lockimpl.Info{Name: "stall-release", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		return &lock{env: env, never: make(chan struct{})}
	}}
}

// Slow is a lock whose every TryAcquire first spends spin of CPU time:
// a search of it runs out of its time long before its depth.
func Slow(spin time.Duration) lockimpl.Info {
	return lockimpl.Info{Name: "stall-slow", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		return &lock{env: env, spin: spin}
	}}
}
