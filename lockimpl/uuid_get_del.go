package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// UUIDGetDel stores a unique token as the lock's value and checks it before
// deleting: GET, compare, then DEL.
//
// Fixes: a holder whose lock has already passed to someone else sees a
// different token and leaves that lock alone — as long as nothing happens
// between its GET and its DEL.
//
// Misses: GET and DEL are two commands. If the lock expires right after the
// GET and another client takes it, the DEL removes the new holder's lock
// (GET 判断 + DEL 不是原子操作).
type UUIDGetDel struct {
	env Env
	own owner
}

// NewUUIDGetDel returns a UUIDGetDel lock.
func NewUUIDGetDel(env Env) Lock { return &UUIDGetDel{env: env, own: owner{env: env}} }

// TryAcquire sends SET key token NX EX ttl.
func (l *UUIDGetDel) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.own.current(), l.env.TTL).Result()
}

// Release sends GET key and, when the value is our token, DEL key.
func (l *UUIDGetDel) Release(ctx context.Context) error {
	c := l.env.Nodes[0]
	token, ok := l.own.held()
	if !ok {
		return ErrNotHeld
	}
	v, err := c.Get(ctx, l.env.Key).Result()
	switch {
	case errors.Is(err, redis.Nil) || err == nil && v != token:
		l.own.drop()
		return ErrNotHeld
	case err != nil:
		return err // keep the token: a retry may still find the lock ours
	}
	if err := c.Del(ctx, l.env.Key).Err(); err != nil {
		return err
	}
	l.own.drop()
	return nil
}
