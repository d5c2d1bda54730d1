"""A lock of your own in Python, as lockstep runs it: the adapter file.

Run it through every lesson with

    lockstep check --impl examples/python/mylock.py

lockstep starts a Python process per client of a lesson, which imports
this file and calls make(); the lesson then calls acquire() and release().
The Redis clients make() gets connect to lockstep's own ports: every
command is a step the scheduler orders, and the run's clock is the
lesson's (time.monotonic and time.sleep in redis.lock; see
docs/external.md for what the agent puts on the run's clock).

This one is SET NX PX with a random token, released by a Lua script that
deletes the key only if it still holds the token: uuid-lua, in Python.
Set PLAIN_DEL = True to release with a plain DEL instead, and watch
del-other break ownership.
"""

import uuid

PLAIN_DEL = False

RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class NotHeld(Exception):
    """release(): the lock was no longer ours, and was left alone."""


class MyLock:
    def __init__(self, r, key, ttl_ms):
        self.r, self.key, self.ttl_ms = r, key, ttl_ms
        self.token = None

    def acquire(self):
        token = uuid.uuid4().hex
        if self.r.set(self.key, token, nx=True, px=self.ttl_ms):
            self.token = token
            return True
        return False

    def release(self):
        token, self.token = self.token, None
        if PLAIN_DEL:
            self.r.delete(self.key)
            return
        if not self.r.eval(RELEASE, 1, self.key, token):
            raise NotHeld()


def make(nodes, key, ttl_ms, options):
    """nodes: a redis.Redis per node of the lesson; key and ttl_ms: the
    lesson's lock key and lease; options: {} for a lock of your own."""
    return MyLock(nodes[0], key, ttl_ms)
