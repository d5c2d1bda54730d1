// Package mylock is an example of a lock of your own, put through lockstep's
// lessons by locktest (see mylock_test.go). It is the lock most teams write:
// SET NX PX with a unique token, released by a Lua compare-and-delete, and,
// in its watched form, a watchdog that renews the lease while the holder
// works — written as plain Go, a goroutine on a time.Ticker with a
// context.WithTimeout around each renewal. It works against a production
// Redis unchanged; in the test, lockstep gives it embedded servers and
// deterministic tokens through lockimpl.Env, and runs its goroutine, its
// ticker and its timeouts on the lesson's virtual time.
package mylock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// release deletes the key only if it still holds our token: one command, so
// nothing can happen between the check and the delete.
var release = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// renew extends the lease only while the key still holds our token.
var renew = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// Lock is one client's handle on the lock.
type Lock struct {
	env   lockimpl.Env
	token string
	// PlainDEL releases with DEL, without checking the token: the classic
	// bug (误删) that locktest catches.
	PlainDEL bool
	// Watched renews the lease every third of it while the lock is held
	// (看门狗续期).
	Watched bool
	// stop ends the watchdog; done is closed once it has.
	stop, done chan struct{}
}

// New is the lockimpl.Maker of the correct lock.
func New(env lockimpl.Env) lockimpl.Lock { return &Lock{env: env} }

// NewPlainDEL is the lockimpl.Maker of the same lock with the bug.
func NewPlainDEL(env lockimpl.Env) lockimpl.Lock { return &Lock{env: env, PlainDEL: true} }

// NewWatched is the lockimpl.Maker of the lock with a watchdog.
func NewWatched(env lockimpl.Env) lockimpl.Lock { return &Lock{env: env, Watched: true} }

// TryAcquire makes one attempt: SET key token NX PX ttl.
func (l *Lock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.env.Token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if ok {
		l.token = token
		if l.Watched {
			l.stop, l.done = make(chan struct{}), make(chan struct{})
			go l.watch(token, l.stop, l.done)
		}
	}
	return ok, err
}

// watch renews the lease every third of it until Release stops it, or
// until a renewal finds the lock gone (or fails: the holder no longer knows
// it holds the lock, and must not pretend to).
func (l *Lock) watch(token string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ticker := time.NewTicker(l.env.TTL / 3)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.env.TTL/3)
		n, err := renew.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, token, l.env.TTL.Milliseconds()).Int()
		cancel()
		if err != nil || n == 0 {
			return
		}
	}
}

// Release stops the watchdog, if any, and gives the lock back if it is
// still ours.
func (l *Lock) Release(ctx context.Context) error {
	defer func() { l.token = "" }()
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	if l.PlainDEL {
		return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
	}
	n, err := release.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}
