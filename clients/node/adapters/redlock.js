'use strict';
// npm's redlock 4.2.0 (Mike Marcacci's), on ioredis, as an application
// takes it: a Redlock over the lesson's nodes. acquire is one attempt
// (retryCount: 0): the lesson's program waits and tries again. The
// library's own defaults stand otherwise (driftFactor 0.01; after a quorum
// it checks that the lock's validity, expiration > Date.now(), is left).
const Redis = require('ioredis');
const Redlock = require('redlock');

exports.make = function make(nodes, key, ttlMs) {
  const clients = nodes.map((n) => new Redis({ host: n.host, port: n.port }));
  const redlock = new Redlock(clients, { retryCount: 0 });
  redlock.on('clientError', () => {}); // a node that fails is a vote against
  let held = null;
  return {
    async acquire() {
      try {
        held = await redlock.lock(key, ttlMs);
        return true;
      } catch (e) {
        if (e instanceof Redlock.LockError) return false;
        throw e;
      }
    },
    async release() {
      const lock = held;
      held = null;
      if (!lock) throw new NotHeld('no lock taken');
      try {
        await lock.unlock();
      } catch (e) {
        // redlock says it could not release on a majority: the lock was
        // no longer the client's there (its script deletes only its own).
        if (e instanceof Redlock.LockError) throw new NotHeld(e.message);
        throw e;
      }
    },
  };
};

class NotHeld extends Error {}
