package lockimpl

import (
	"context"
	"errors"

	"github.com/bsm/redislock"
)

// Redislock is github.com/bsm/redislock, used as its README shows:
// Obtain with a TTL, Release when done. Obtain sends one Lua script that
// does SET key token NX PX ttl (and lets the same token take its own lock
// again); Release is a compare-and-delete script.
//
// The adapter passes the library two things a production caller usually
// leaves to its defaults: the token (from Env.Token, so that traces read
// "A#1" and stay the same from run to run, where the library would draw 16
// random bytes) and RetryStrategy NoRetry (the library's default too: the
// program around the lock does the retrying, on the simulator's clock).
// redislock itself never reads the clock then; with no deadline on the
// context it sets one of TTL, which a single attempt never reaches.
//
// Fixes: what uuid-lua fixes — the lease, the token, an atomic release.
//
// Misses: what uuid-lua misses. The library offers Refresh but no watchdog:
// work longer than the TTL runs on without the lock unless the caller
// refreshes it. One server, so a failover can lose the lock; no fencing
// token, so a paused holder's late write goes through.
type Redislock struct {
	env    Env
	client *redislock.Client
	lock   *redislock.Lock
}

// NewRedislock returns a Redislock lock on env.Nodes[0].
func NewRedislock(env Env) Lock { return &Redislock{env: env} }

// TryAcquire calls Obtain once.
func (l *Redislock) TryAcquire(ctx context.Context) (bool, error) {
	if l.client == nil {
		l.client = redislock.New(l.env.Nodes[0])
	}
	lock, err := l.client.Obtain(ctx, l.env.Key, l.env.TTL, &redislock.Options{
		Token:         l.env.Token(),
		RetryStrategy: redislock.NoRetry(),
	})
	if errors.Is(err, redislock.ErrNotObtained) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	l.lock = lock
	return true, nil
}

// Release calls Release on the lock Obtain returned.
func (l *Redislock) Release(ctx context.Context) error {
	if l.lock == nil {
		return ErrNotHeld
	}
	err := l.lock.Release(ctx)
	if errors.Is(err, redislock.ErrLockNotHeld) {
		l.lock = nil
		return ErrNotHeld
	}
	if err == nil {
		l.lock = nil
	}
	return err
}
