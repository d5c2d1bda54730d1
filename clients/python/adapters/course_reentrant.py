"""The course's own Python lock (seed 002): SimpleLock and ReentrantLock,
as the course writes them, on redis-py.

ReentrantLock.acquire reads the key (GET), and if it is free or its own,
writes it (SET key owner EX ttl, with no NX): two steps, with room between
them for another client to do the same. release counts down, and at zero
releases by SimpleLock's Lua compare-and-delete; on the way down it
refreshes the expiry with EXPIRE.

The classes below are the course's code, unchanged but for layout; only
make() and the adapter are lockstep's.
"""

import time
import uuid

import redis


class SimpleLock:
    """基础版 Redis 分布式锁：SETNX + EXPIRE + Lua 防误删"""

    def __init__(self, client, key, ttl=10):
        self.client = client
        self.key = key
        self.ttl = ttl
        self.owner = str(uuid.uuid4())

    def acquire(self):
        # SET key value NX EX ttl：原子完成加锁与过期设置
        return bool(self.client.set(
            self.key, self.owner, nx=True, ex=self.ttl
        ))

    def release(self):
        # Lua 脚本：先校验持有者，再删除，保证原子性
        lua = """
        if redis.call('get', KEYS[1]) == ARGV[1] then
            return redis.call('del', KEYS[1])
        else
            return 0
        end
        """
        ok = self.client.eval(lua, 1, self.key, self.owner)
        return bool(ok)


class ReentrantLock(SimpleLock):
    """可重入版：加计数器，同一线程可多次获取锁"""

    def __init__(self, client, key, ttl=10):
        super().__init__(client, key, ttl)
        self.count = 0

    def acquire(self):
        cur = self.client.get(self.key)
        if cur is None or cur.decode() == self.owner:
            self.client.set(self.key, self.owner, ex=self.ttl)
            self.count += 1
            return True
        return False

    def release(self):
        if self.count <= 0:
            return False
        self.count -= 1
        if self.count == 0:
            return super().release()
        self.client.expire(self.key, self.ttl)
        return True


class NotHeld(Exception):
    """release() said False: the lock was not the client's to release."""


class Adapter:
    def __init__(self, lock):
        self.lock = lock

    def acquire(self):
        return self.lock.acquire()

    def release(self):
        if not self.lock.release():
            raise NotHeld(self.lock.key)


def make(nodes, key, ttl_ms, options):
    # The course's TTL is whole seconds (EX).
    return Adapter(ReentrantLock(nodes[0], key, ttl=max(1, ttl_ms // 1000)))
