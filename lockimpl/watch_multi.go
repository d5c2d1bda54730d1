package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// WatchMulti is the optimistic lock of Redis's transactions page, the way a
// team writes it with go-redis: WATCH the key, read it, and write with
// MULTI … EXEC, which does nothing if the key changed in between. Acquire:
// WATCH key; EXISTS key; MULTI; SET key token EX ttl; EXEC. Release: WATCH
// key; GET key; if it holds our token, MULTI; DEL key; EXEC (乐观锁：WATCH +
// MULTI/EXEC 事务).
//
// Fixes: what uuid-lua fixes, without Lua — the lease, the token, and a
// release that deletes only our own lock: a key that changes between the
// GET and the EXEC voids the transaction, so the check and the delete act
// as one.
//
// Misses: what uuid-lua misses — no renewal, one server, no fencing. And an
// acquire is three steps: a holder paused between its read and its EXEC
// comes back to an EXEC that fails if anyone touched the key meanwhile
// (which is what WATCH is for).
type WatchMulti struct {
	env Env
	own owner
	// skipWatch leaves out the acquire's WATCH: its read and its write are
	// then two steps another client can come between.
	skipWatch bool
}

// NewWatchMulti returns a WatchMulti lock.
func NewWatchMulti(env Env) Lock { return &WatchMulti{env: env, own: owner{env: env}} }

// NewWatchMultiUnwatched returns WatchMulti with its acquire's WATCH left
// out, the mistake that makes it no lock at all: two clients can both read
// the key absent and both write it. It is not in the catalogue; the tests
// show that a search finds it.
func NewWatchMultiUnwatched(env Env) Lock {
	return &WatchMulti{env: env, own: owner{env: env}, skipWatch: true}
}

// TryAcquire writes the key if it is absent, in a transaction that fails
// if the key changed since the read.
func (l *WatchMulti) TryAcquire(ctx context.Context) (bool, error) {
	token, got := l.own.current(), false
	watched := []string{l.env.Key}
	if l.skipWatch {
		watched = nil
	}
	err := l.env.Nodes[0].Watch(ctx, func(tx *redis.Tx) error {
		n, err := tx.Exists(ctx, l.env.Key).Result()
		if err != nil || n > 0 {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, l.env.Key, token, l.env.TTL)
			return nil
		})
		got = err == nil
		return err
	}, watched...)
	if errors.Is(err, redis.TxFailedErr) {
		return false, nil // taken between the read and EXEC
	}
	return got, err
}

// Release deletes the key if it holds our token, in a transaction that
// fails if the key changed since the read.
func (l *WatchMulti) Release(ctx context.Context) error {
	token, ok := l.own.held()
	if !ok {
		return ErrNotHeld
	}
	err := l.env.Nodes[0].Watch(ctx, func(tx *redis.Tx) error {
		v, err := tx.Get(ctx, l.env.Key).Result()
		if errors.Is(err, redis.Nil) || err == nil && v != token {
			return ErrNotHeld
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
		err = ErrNotHeld // changed between the read and EXEC: no longer ours
	}
	if err == nil || errors.Is(err, ErrNotHeld) {
		l.own.drop()
	}
	return err
}
