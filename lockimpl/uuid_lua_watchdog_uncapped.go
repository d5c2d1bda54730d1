package lockimpl

// NewUUIDLuaWatchdogUncapped returns a UUIDLuaWatchdog whose watchdog renews
// for as long as the process lives: no cap on renewals.
//
// Fixes: work of any length keeps the lock, however many renewals it needs.
//
// Misses: the watchdog's own trap (看门狗无限续期). A business goroutine that
// hangs in a live process never releases, and the watchdog, which only knows
// that the process is alive, renews the lease forever: nobody else ever gets
// the lock. A crashed process still loses its lock within a TTL.
func NewUUIDLuaWatchdogUncapped(env Env) Lock {
	return &UUIDLuaWatchdog{env: env, own: owner{env: env}}
}
