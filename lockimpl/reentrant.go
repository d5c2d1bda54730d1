package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

var (
	reentrantAcquireScript = redis.NewScript(`-- reentrant-acquire: take or re-enter the lock, counting holds
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`)

	// reentrantReleaseScript answers nil for a lock the caller does not
	// hold, as Redisson's unlock script does (on which Redisson throws
	// IllegalMonitorStateException); 0 for a hold counted down, 1 for the
	// lock deleted.
	reentrantReleaseScript = redis.NewScript(`-- reentrant-release: drop one hold, delete the lock at zero
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('DEL', KEYS[1])
return 1`)
)

// Reentrant is a Redisson-style reentrant lock (可重入锁): the lock is a hash
// {owner token: hold count}. The owner may take it again without blocking
// itself; each release counts down and the key is deleted at zero. Both are
// Lua scripts, so check and update are atomic.
//
// Fixes: a nested call that takes the same lock no longer deadlocks on its own
// holder; releases never touch another owner's lock.
//
// Misses: no watchdog here, so work longer than the TTL loses the lock; one
// server, so failover can lose it; no fencing token.
type Reentrant struct {
	env   Env
	own   owner
	holds int
}

// NewReentrant returns a Reentrant lock.
func NewReentrant(env Env) Lock { return &Reentrant{env: env, own: owner{env: env}} }

// TryAcquire runs the acquire script: it succeeds when the lock is free or
// already ours.
func (l *Reentrant) TryAcquire(ctx context.Context) (bool, error) {
	n, err := reentrantAcquireScript.Eval(ctx, l.env.Nodes[0], []string{l.env.Key},
		l.own.current(), ttlMillis(l.env.TTL)).Int64()
	if err != nil || n == 0 {
		return false, err
	}
	l.holds++
	return true, nil
}

// Release runs the release script: one hold fewer, the key gone at zero.
func (l *Reentrant) Release(ctx context.Context) error {
	token, ok := l.own.held()
	if !ok {
		return ErrNotHeld
	}
	n, err := reentrantReleaseScript.Eval(ctx, l.env.Nodes[0], []string{l.env.Key},
		token, ttlMillis(l.env.TTL)).Int64()
	switch {
	case err != nil && err != redis.Nil:
		return err // nothing changed locally: a retry can try again
	case err == redis.Nil:
		// The lock is not ours (any more): forget every hold.
		l.holds = 0
		l.own.drop()
		return ErrNotHeld
	case n == 1:
		// Redis counted down to zero and deleted the key.
		l.holds = 0
		l.own.drop()
	default:
		l.holds = max(l.holds-1, 1)
	}
	return nil
}
