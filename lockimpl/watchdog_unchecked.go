package lockimpl

import "context"

// NewWatchdogUnchecked returns UUIDLuaWatchdog with the renewal the course
// warns about (text 001, renew.lua): the watchdog extends the lease with a
// plain PEXPIRE key ttl, without checking that the key still holds its
// token.
//
// Fixes: nothing over uuid-lua-watchdog; it is the trap.
//
// Misses: once the lease has run out under a holder that does not know it
// (a pause, a slow renewal) and another client has taken the lock, the
// first holder's watchdog extends the other client's lock (续期了别人的锁):
// ownership breaks, and the stale holder never learns it lost the lock, as
// PEXPIRE on an existing key always says yes.
func NewWatchdogUnchecked(env Env) Lock {
	return &UUIDLuaWatchdog{env: env, own: owner{env: env}, maxRenewals: DefaultMaxRenewals, renew: renewUnchecked}
}

// renewUnchecked extends whatever key is there: PEXPIRE key ttl.
func renewUnchecked(ctx context.Context, env Env, _ string) (bool, error) {
	return env.Nodes[0].PExpire(ctx, env.Key, env.TTL).Result()
}
