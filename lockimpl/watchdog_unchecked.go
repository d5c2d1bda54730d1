package lockimpl

import "context"

// WatchdogUnchecked is UUIDLuaWatchdog with the renewal the course warns
// about (text 001, renew.lua): the watchdog extends the lease with a plain
// PEXPIRE key ttl, without checking that the key still holds its token.
//
// Fixes: nothing over uuid-lua-watchdog; it is the trap.
//
// Misses: once the lease has run out under a holder that does not know it
// (a pause, a slow renewal) and another client has taken the lock, the
// first holder's watchdog extends the other client's lock (续期了别人的锁):
// ownership breaks, and the stale holder never learns it lost the lock, as
// PEXPIRE on an existing key always says yes.
type WatchdogUnchecked struct {
	env Env
	own owner
	dog *watchdog
}

// NewWatchdogUnchecked returns a WatchdogUnchecked lock.
func NewWatchdogUnchecked(env Env) Lock {
	return &WatchdogUnchecked{env: env, own: owner{env: env}}
}

// TryAcquire sends SET key token NX EX ttl and, on success, starts the
// watchdog.
func (l *WatchdogUnchecked) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if err != nil || !ok {
		return false, err
	}
	l.dog.stop()
	l.dog = startRenewing(ctx, l.env, token, DefaultMaxRenewals, renewUnchecked)
	return true, nil
}

// Release stops the watchdog, then runs the compare-and-delete script.
func (l *WatchdogUnchecked) Release(ctx context.Context) error {
	l.dog.stop()
	l.dog = nil
	return releaseOwned(ctx, l.env, &l.own)
}

// Lost is closed when a renewal found no key at all.
func (l *WatchdogUnchecked) Lost() <-chan struct{} { return l.dog.lostChan() }

// renewUnchecked extends whatever key is there: PEXPIRE key ttl.
func renewUnchecked(ctx context.Context, env Env, _ string) (bool, error) {
	return env.Nodes[0].PExpire(ctx, env.Key, env.TTL).Result()
}
