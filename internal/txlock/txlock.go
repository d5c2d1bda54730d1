// Package txlock is a lock taken and released with Redis transactions
// (WATCH, MULTI … EXEC), for the tests that show the engine runs such code
// as written.
package txlock

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"lockstep/lockimpl"
)

// lock is the lock of Redis's transactions page, the way a team
// writes it with go-redis: WATCH the key, read it, and write with MULTI …
// EXEC, which does nothing if the key changed in between.
type lock struct {
	env   lockimpl.Env
	token string
	// unwatched leaves out the acquire's WATCH: its read and its write are
	// then two steps another client can come between (Unwatched).
	unwatched bool
}

func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	tok, got := l.env.Token(), false
	watched := []string{l.env.Key}
	if l.unwatched {
		watched = nil
	}
	err := l.env.Nodes[0].Watch(ctx, func(tx *redis.Tx) error {
		n, err := tx.Exists(ctx, l.env.Key).Result()
		if err != nil || n > 0 {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, l.env.Key, tok, l.env.TTL)
			return nil
		})
		got = err == nil
		return err
	}, watched...)
	if errors.Is(err, redis.TxFailedErr) {
		return false, nil // someone took it between the read and EXEC
	}
	if got {
		l.token = tok
	}
	return got, err
}

func (l *lock) Release(ctx context.Context) error {
	err := l.env.Nodes[0].Watch(ctx, func(tx *redis.Tx) error {
		v, err := tx.Get(ctx, l.env.Key).Result()
		if errors.Is(err, redis.Nil) || err == nil && v != l.token {
			return lockimpl.ErrNotHeld
		}
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, l.env.Key)
			return nil
		})
		return err
	}, l.env.Key)
	if errors.Is(err, redis.TxFailedErr) {
		return lockimpl.ErrNotHeld
	}
	return err
}

// Info is the lock, named "optimistic".
var Info = lockimpl.Info{Name: "optimistic", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env} }}

// Unwatched is the lock with its acquire's WATCH left out, named
// "optimistic-unwatched": two clients can both read the key absent and
// both write it.
var Unwatched = lockimpl.Info{Name: "optimistic-unwatched", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, unwatched: true} }}
