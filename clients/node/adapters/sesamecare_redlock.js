'use strict';
// @sesamecare-oss/redlock 1.4.0, on ioredis, as an application takes it: a
// Redlock over the lesson's nodes. acquire is one attempt (retryCount: 0):
// the lesson's program waits and tries again. The library's defaults stand
// otherwise: it resolves as soon as a quorum voted for the lock, and does
// not check how much of the lease the acquire left (no validity check).
const Redis = require('ioredis');
const { Redlock, ExecutionError } = require('@sesamecare-oss/redlock');

exports.make = function make(nodes, key, ttlMs) {
  const clients = nodes.map((n) => new Redis({ host: n.host, port: n.port }));
  const redlock = new Redlock(clients, { retryCount: 0 });
  redlock.on('error', () => {});
  let held = null;
  return {
    async acquire() {
      try {
        held = await redlock.acquire([key], ttlMs);
        return true;
      } catch (e) {
        if (e instanceof ExecutionError) return false;
        throw e;
      }
    },
    async release() {
      const lock = held;
      held = null;
      if (!lock) throw new NotHeld('no lock taken');
      try {
        await lock.release();
      } catch (e) {
        // No majority released it: the lock was no longer the client's
        // there (the script deletes only its own value).
        if (e instanceof ExecutionError) throw new NotHeld(e.message);
        throw e;
      }
    },
  };
};

class NotHeld extends Error {}
