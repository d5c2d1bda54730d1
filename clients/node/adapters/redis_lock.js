'use strict';
// npm's redis-lock 1.0.0, on node-redis 4 (the client it requires), as an
// application takes it: lock(name, ttl) retries every 50 ms (its default
// retryDelay) until SET lock.<name> <its deadline> PX ttl NX succeeds, and
// returns done, which DELs lock.<name> if the client's own clock says the
// deadline has not passed, and does nothing otherwise.
//
// The library keeps the key "lock." + name: lockstep gives this lock the key
// lock.<lesson's key> (the implementation's KeyOf), and the name is the rest.
const { createClient } = require('redis4');
const redisLock = require('redis-lock');

exports.make = async function make(nodes, key, ttlMs) {
  const client = createClient({ socket: { host: nodes[0].host, port: nodes[0].port } });
  client.on('error', () => {}); // node-redis reconnects by itself
  await client.connect();
  const lock = redisLock(client);
  const name = key.startsWith('lock.') ? key.slice('lock.'.length) : key;
  let done = null;
  return {
    // redis-lock has no single attempt: acquire waits, polling, until it
    // holds the lock.
    async acquire() {
      done = await lock(name, ttlMs);
      return true;
    },
    async release() {
      const d = done;
      done = null;
      if (!d) throw new NotHeld('no lock taken');
      // done() returns DEL's reply, or nothing when the client's clock said
      // the lock had expired and it left the key alone.
      const deleted = await d();
      if (deleted === undefined) throw new NotHeld('its deadline had passed: redis-lock left the key alone');
      if (deleted === 0) throw new NotHeld('DEL found no key');
    },
  };
};

class NotHeld extends Error {}
