'use strict';
// A lock of your own in JavaScript, as lockstep runs it: the adapter file.
//
// Run it through every lesson with
//
//     lockstep check --impl examples/node/mylock.js
//
// lockstep starts a Node process per client of a lesson, which requires this
// file and calls make(); the lesson then calls acquire() and release(). The
// addresses make() gets are lockstep's own Redis ports: every command is a
// step the scheduler orders, and the run's clock is the lesson's
// (setTimeout, setInterval, Date and performance; see docs/external.md).
// Libraries come from clients/node's node_modules (npm ci there): ioredis
// here.
//
// This one is SET NX PX with a random token, released by a Lua script that
// deletes the key only if it still holds the token: uuid-lua, in
// JavaScript. Set PLAIN_DEL to true to release with a plain DEL instead,
// and watch del-other break ownership.

const crypto = require('crypto');
const Redis = require('ioredis');

const PLAIN_DEL = false;

const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
`;

// release(): the lock was no longer ours, and was left alone.
class NotHeld extends Error {}

exports.make = function make(nodes, key, ttlMs) {
  const r = new Redis({ host: nodes[0].host, port: nodes[0].port });
  let token = null;
  return {
    async acquire() {
      const t = crypto.randomBytes(16).toString('hex');
      if ((await r.set(key, t, 'PX', ttlMs, 'NX')) === 'OK') {
        token = t;
        return true;
      }
      return false;
    },
    async release() {
      const t = token;
      token = null;
      if (PLAIN_DEL) {
        await r.del(key);
        return;
      }
      if ((await r.eval(RELEASE, 1, key, t)) === 0) throw new NotHeld(key + ' was no longer ' + t);
    },
  };
};
