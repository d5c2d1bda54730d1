"""A test's lock: redis-py's Lock with timeout= the lease, and a renew() by
its extend(replace_ttl=True), a Lua compare-and-PEXPIRE, which lockstep
calls as a watchdog: uuid-lua-watchdog, in Python."""


class Adapter:
    def __init__(self, lock, ttl):
        self.lock, self.ttl = lock, ttl

    def acquire(self):
        return self.lock.acquire(blocking=False)

    def release(self):
        self.lock.release()

    def renew(self):
        # LockNotOwnedError: the lock is no longer this client's.
        self.lock.extend(self.ttl, replace_ttl=True)


def make(nodes, key, ttl_ms, options):
    return Adapter(nodes[0].lock(key, timeout=ttl_ms / 1000.0), ttl_ms / 1000.0)
