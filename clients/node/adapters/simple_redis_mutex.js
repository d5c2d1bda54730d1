'use strict';
// npm's simple-redis-mutex 3.0.0, on node-redis 5 (the client it requires),
// as an application takes it: tryLock(client, name, { timeout }) is one
// attempt, SET @simple-redis-mutex:lock-<name> <Math.random()> NX PX
// timeout, then INCR of a fencing counter every lock of the library shares;
// the release is a Lua compare-and-delete that also PUBLISHes the release
// on a channel the library shares.
//
// The library keeps the key "@simple-redis-mutex:lock-" + name: lockstep
// gives this lock that key (the implementation's KeyOf), and the name is the
// rest. tryLock subscribes to the channel as it starts (a duplicate
// connection), and lockstep delivers the releases published on it; only
// the library's blocking lock() waits on them, and tryLock is one attempt,
// as the lesson's program expects.
//
// With options.refresh the lock has a renew(), which lockstep calls every
// TTL/3 while the client holds the lock, as an application whose work may
// outlast the lease calls the library's refreshTimeout(): a GET, then, if
// the key still holds this lock's value, a separate PEXPIRE. It says
// nothing of which it did, so renew() cannot say the lock was lost.
const { createClient } = require('redis');
const { tryLock } = require('simple-redis-mutex');

const PREFIX = '@simple-redis-mutex:lock-';

exports.make = async function make(nodes, key, ttlMs, options) {
  const client = createClient({ socket: { host: nodes[0].host, port: nodes[0].port } });
  client.on('error', () => {}); // node-redis reconnects by itself
  await client.connect();
  const name = key.startsWith(PREFIX) ? key.slice(PREFIX.length) : key;
  let release = null;
  const lock = {
    async acquire() {
      const [held, rel] = await tryLock(client, name, { timeout: ttlMs });
      if (!held) return false;
      release = rel;
      // The hold's fencing token, for the resource to check.
      return { held: true, fence: rel.fencingToken };
    },
    async release() {
      const rel = release;
      release = null;
      if (!rel) throw new NotHeld('no lock taken');
      // The script deletes the key only if it still holds this lock's
      // value, and says nothing of which it did.
      await rel();
    },
  };
  if (options.refresh) {
    lock.renew = async () => {
      if (release) await release.refreshTimeout();
    };
  }
  return lock;
};

class NotHeld extends Error {}
