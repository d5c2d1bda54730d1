package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// reentrantRenewScript extends a reentrant lock's hash only while it holds
// our token as a field, as Redisson's renewal does.
var reentrantRenewScript = redis.NewScript(`-- reentrant-renew: extend the lock only if we hold it
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// Redisson is the reentrant hash lock with Redisson's watchdog, and
// Redisson's rule for it: lock() without a lease time takes the lock for
// lockWatchdogTimeout (the TTL, 30 s by default) and renews it every TTL/3
// for as long as it is held, with no cap; lock(leaseTime) takes it for
// that lease and does not renew it at all (Env.Lease): the caller chose
// when the lock ends.
//
// Fixes: over reentrant, work longer than the TTL keeps the lock when no
// lease is given, and a crashed holder's lock still runs out within a TTL.
//
// Misses: an explicit lease turns the watchdog off, so work that outlasts
// the lease loses the lock, as with no watchdog at all; with no lease, a
// hung business thread in a live process is renewed forever (no cap); a
// pause freezes the watchdog; one server; no fencing token.
type Redisson struct {
	*Reentrant
	dog *watchdog
}

// NewRedisson returns a Redisson lock.
func NewRedisson(env Env) Lock {
	return &Redisson{Reentrant: &Reentrant{env: env, own: owner{env: env}}}
}

// TryAcquire is Reentrant's; the first hold starts the watchdog unless the
// caller passed a lease.
func (l *Redisson) TryAcquire(ctx context.Context) (bool, error) {
	ok, err := l.Reentrant.TryAcquire(ctx)
	if !ok || l.holds != 1 || l.env.Lease > 0 {
		return ok, err
	}
	l.dog.stop() // a watchdog left from a hold that was lost
	token, _ := l.own.held()
	l.dog = startRenewing(ctx, l.env, token, 0, renewHash)
	return ok, err
}

// Release stops the watchdog before the last hold goes, then is
// Reentrant's.
func (l *Redisson) Release(ctx context.Context) error {
	if l.holds <= 1 {
		l.dog.stop()
		l.dog = nil
	}
	return l.Reentrant.Release(ctx)
}

// Lost is closed when a renewal found the lock gone.
func (l *Redisson) Lost() <-chan struct{} { return l.dog.lostChan() }

// renewHash runs the hash-aware compare-and-PEXPIRE script on node 0.
func renewHash(ctx context.Context, env Env, token string) (bool, error) {
	n, err := reentrantRenewScript.Eval(ctx, env.Nodes[0], []string{env.Key}, token, ttlMillis(env.TTL)).Int64()
	return n == 1, err
}
