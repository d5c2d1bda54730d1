package lockimpl

import (
	"context"
	"errors"
)

// ReentrantLocal is a reentrant lock (可重入锁) whose hold count lives in the
// application, not in Redis: the course's second design (线程本地变量维护
// 计数器). The first acquire takes the lock as UUIDLua does (SET NX with a
// unique token); a nested acquire while this handle holds it only counts one
// hold more, and a release counts one down. Redis sees the first acquire
// and the last release, the compare-and-delete script, and nothing between.
//
// Fixes: a nested call no longer blocks on its own holder, and the lock is
// a plain string with one command to take it: no check-then-write race as
// in ReentrantGetSet, and no hash or script on the acquire.
//
// Misses: a nested acquire trusts the local count and never asks Redis. If
// the lease ran out under the outer hold (and another client took the lock)
// the nested call still gets in, and nothing between the first acquire and
// the last release renews the lease. The count is this handle's: another
// handle with the same owner is a stranger. No watchdog; one server; no
// fencing.
type ReentrantLocal struct {
	env   Env
	own   owner
	holds int // holds this handle believes it has: 0 when it holds none
}

// NewReentrantLocal returns a ReentrantLocal lock.
func NewReentrantLocal(env Env) Lock {
	return &ReentrantLocal{env: env, own: owner{env: env}}
}

// TryAcquire counts a nested hold without a command; the first hold sends
// SET key token NX EX ttl, as UUIDLua.
func (l *ReentrantLocal) TryAcquire(ctx context.Context) (bool, error) {
	if l.holds > 0 {
		l.holds++
		return true, nil
	}
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, l.own.current(), l.env.TTL).Result()
	if ok {
		l.holds = 1
	}
	return ok, err
}

// Release counts one hold down; the last one runs the compare-and-delete
// script. After a network error on that script the hold is kept, so that a
// retried release can still find the lock.
func (l *ReentrantLocal) Release(ctx context.Context) error {
	switch {
	case l.holds <= 0:
		return ErrNotHeld
	case l.holds > 1:
		l.holds--
		return nil
	}
	err := releaseOwned(ctx, l.env, &l.own)
	if err == nil || errors.Is(err, ErrNotHeld) {
		l.holds = 0
	}
	return err
}
