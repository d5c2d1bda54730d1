package lockimpl

import (
	"context"
	"errors"
)

// UUIDLua is the correct single-instance lock: SET key token NX EX ttl to take
// it, and a Lua script that compares the token and deletes in one atomic step
// to release it (SET NX EX + UUID + Lua 释放).
//
// Fixes: crash safety (the lease), mis-deletion (the token), and the
// GET-then-DEL race (the compare-and-delete is one command).
//
// Misses: nothing renews the lease, so work longer than the TTL runs on after
// the lock has expired and passed to someone else. The lock lives on one
// server: a failover to a replica that had not yet received it loses it
// (主从切换丢锁). A paused holder cannot know it has lost the lock.
type UUIDLua struct {
	env Env
	own owner
}

// NewUUIDLua returns a UUIDLua lock.
func NewUUIDLua(env Env) Lock { return &UUIDLua{env: env, own: owner{env: env}} }

// TryAcquire sends SET key token NX EX ttl.
func (l *UUIDLua) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.own.current(), l.env.TTL).Result()
}

// Release runs the compare-and-delete script.
func (l *UUIDLua) Release(ctx context.Context) error {
	return releaseOwned(ctx, l.env, &l.own)
}

// releaseOwned runs the compare-and-delete script on node 0 for the current
// hold. The token is forgotten once the server has answered; after a network
// error it is kept so that a retried release can still find the lock.
func releaseOwned(ctx context.Context, env Env, own *owner) error {
	token, ok := own.held()
	if !ok {
		return ErrNotHeld
	}
	err := releaseOn(ctx, env, 0, token)
	if err == nil || errors.Is(err, ErrNotHeld) {
		own.drop()
	}
	return err
}

// releaseOn runs the compare-and-delete script on node i.
func releaseOn(ctx context.Context, env Env, i int, token string) error {
	n, err := releaseScript.Eval(ctx, env.Nodes[i], []string{env.Key}, token).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotHeld
	}
	return nil
}
