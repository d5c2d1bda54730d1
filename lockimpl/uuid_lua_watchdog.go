package lockimpl

import "context"

// UUIDLuaWatchdog is UUIDLua plus a watchdog: a background goroutine that
// renews the lease every TTL/3 with a compare-and-PEXPIRE script while the
// lock is held (看门狗续期), up to a cap of DefaultMaxRenewals renewals. When
// a renewal finds the lock gone it stops and closes Lost.
//
// Fixes: work that takes longer than the TTL keeps the lock, while a crashed
// holder's lock still expires (a dead process has no watchdog). The cap keeps
// a live process with a stuck business thread from holding the lock forever.
//
// Misses: a stop-the-world pause (GC, VM migration) freezes the watchdog with
// everything else; the lease runs out and another client takes the lock while
// the paused holder still believes it holds it. Failover can still lose the
// lock. Work that needs more than the cap of renewals loses the lock.
type UUIDLuaWatchdog struct {
	env Env
	own owner
	dog *watchdog
	// maxRenewals caps the watchdog; 0 means no cap.
	maxRenewals int
	// renew is the watchdog's renewal; nil: the compare-and-PEXPIRE script.
	renew func(ctx context.Context, env Env, token string) (bool, error)
}

// NewUUIDLuaWatchdog returns a UUIDLuaWatchdog lock.
func NewUUIDLuaWatchdog(env Env) Lock {
	return &UUIDLuaWatchdog{env: env, own: owner{env: env}, maxRenewals: DefaultMaxRenewals}
}

// TryAcquire sends SET key token NX EX ttl and, on success, starts the
// watchdog.
func (l *UUIDLuaWatchdog) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if err != nil || !ok {
		return false, err
	}
	l.dog.stop() // a watchdog left from a hold that was lost
	if l.renew == nil {
		l.dog = startWatchdog(ctx, l.env, token, l.maxRenewals)
	} else {
		l.dog = startRenewing(ctx, l.env, token, l.maxRenewals, l.renew)
	}
	return true, nil
}

// Release stops the watchdog, then runs the compare-and-delete script.
func (l *UUIDLuaWatchdog) Release(ctx context.Context) error {
	l.dog.stop()
	l.dog = nil
	return releaseOwned(ctx, l.env, &l.own)
}

// Lost is closed when a renewal found the lock gone.
func (l *UUIDLuaWatchdog) Lost() <-chan struct{} { return l.dog.lostChan() }
