package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// ReentrantGetSet is the course's own reentrant lock (text 002's Python
// ReentrantLock), translated as written: acquire reads the key with GET and,
// when it is free or holds this client's token, writes it with a plain
// SET key token EX ttl — no NX — and counts the hold; release counts down,
// renews an inner release with a plain EXPIRE, and deletes the lock with the
// compare-and-delete script at zero.
//
// Fixes: a nested call no longer blocks on its own holder, as Reentrant.
//
// Misses: the check and the write are two commands. Two clients that both
// read "free" both write, and the second overwrites the first's lock: both
// hold it (reentrant-race). The renewal on an inner release does not check
// the owner. No lease renewal while working; one server; no fencing.
type ReentrantGetSet struct {
	env   Env
	token string
	holds int
}

// NewReentrantGetSet returns a ReentrantGetSet lock.
func NewReentrantGetSet(env Env) Lock { return &ReentrantGetSet{env: env} }

// TryAcquire sends GET, then SET key token EX ttl when the lock is free or
// already this client's.
func (l *ReentrantGetSet) TryAcquire(ctx context.Context) (bool, error) {
	if l.token == "" {
		// The course draws its owner once per lock object (uuid4 in
		// __init__) and keeps it.
		l.token = l.env.Token()
	}
	cur, err := l.env.Nodes[0].Get(ctx, l.env.Key).Result()
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return false, err
	case cur != l.token:
		return false, nil
	}
	if err := l.env.Nodes[0].Set(ctx, l.env.Key, l.token, l.env.TTL).Err(); err != nil {
		return false, err
	}
	l.holds++
	return true, nil
}

// Release counts down; at zero it runs the compare-and-delete script, before
// that it renews the lease with EXPIRE.
func (l *ReentrantGetSet) Release(ctx context.Context) error {
	if l.holds <= 0 {
		return ErrNotHeld
	}
	l.holds--
	if l.holds == 0 {
		return releaseOn(ctx, l.env, 0, l.token)
	}
	return l.env.Nodes[0].Expire(ctx, l.env.Key, l.env.TTL).Err()
}
