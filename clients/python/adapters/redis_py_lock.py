"""redis-py's own Lock (redis.lock.Lock), as an application takes it.

options: {"timeout": true} passes the lesson's TTL as Lock's timeout;
without it the lock is taken with redis-py's default, timeout=None: a key
with no expiry.
"""

import redis.exceptions


class Adapter:
    def __init__(self, lock):
        self.lock = lock

    def acquire(self):
        # One attempt: the lesson's program waits and tries again.
        return self.lock.acquire(blocking=False)

    def release(self):
        self.lock.release()


def make(nodes, key, ttl_ms, options):
    timeout = ttl_ms / 1000.0 if options.get("timeout") else None
    return Adapter(nodes[0].lock(key, timeout=timeout))
