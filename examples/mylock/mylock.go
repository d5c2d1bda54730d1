// Package mylock is an example of a lock of your own, put through lockstep's
// lessons by locktest (see mylock_test.go). It is the lock most teams write:
// SET NX PX with a unique token, released by a Lua compare-and-delete. It
// works against a production Redis unchanged; in the test, lockstep gives it
// embedded servers, virtual time and deterministic tokens through
// lockimpl.Env.
package mylock

import (
	"context"

	"github.com/redis/go-redis/v9"

	"lockstep/lockimpl"
)

// release deletes the key only if it still holds our token: one command, so
// nothing can happen between the check and the delete.
var release = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Lock is one client's handle on the lock.
type Lock struct {
	env   lockimpl.Env
	token string
	// PlainDEL releases with DEL, without checking the token: the classic
	// bug (误删) that locktest catches.
	PlainDEL bool
}

// New is the lockimpl.Maker of the correct lock.
func New(env lockimpl.Env) lockimpl.Lock { return &Lock{env: env} }

// NewPlainDEL is the lockimpl.Maker of the same lock with the bug.
func NewPlainDEL(env lockimpl.Env) lockimpl.Lock { return &Lock{env: env, PlainDEL: true} }

// TryAcquire makes one attempt: SET key token NX PX ttl.
func (l *Lock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.env.Token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if ok {
		l.token = token
	}
	return ok, err
}

// Release gives the lock back if it is still ours.
func (l *Lock) Release(ctx context.Context) error {
	defer func() { l.token = "" }()
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
