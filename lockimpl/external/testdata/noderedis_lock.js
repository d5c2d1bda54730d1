'use strict';
// A test's lock on node-redis 5: SET NX PX with a counter's token, a Lua
// compare-and-delete release. resp3_lock.js is the same lock on a
// connection that speaks RESP3 (HELLO 3); renew_lock.js is it with a
// renew(), a Lua compare-and-PEXPIRE, which lockstep calls as a watchdog.
const { createClient } = require('redis');

const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return false
`;

const RENEW = `
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`;

class NotHeld extends Error {}

exports.makeWith = (RESP, renews) => async function make(nodes, key, ttlMs) {
  const client = createClient({ RESP, socket: { host: nodes[0].host, port: nodes[0].port } });
  client.on('error', () => {});
  await client.connect();
  let n = 0;
  let token = null;
  const lock = {
    async acquire() {
      const t = 'token-' + ++n;
      // A refusal is a null: RESP3's "_", RESP2's "$-1".
      if ((await client.set(key, t, { PX: ttlMs, NX: true })) !== 'OK') return false;
      token = t;
      return true;
    },
    async release() {
      const t = token;
      token = null;
      // The script's false is a null in both protocols.
      if ((await client.eval(RELEASE, { keys: [key], arguments: [t || ''] })) === null) throw new NotHeld(key);
    },
  };
  if (renews) {
    // false: the key no longer holds this lock's token.
    lock.renew = async () => (await client.eval(RENEW, { keys: [key], arguments: [token || '', String(ttlMs)] })) === 1;
  }
  return lock;
};

exports.make = exports.makeWith(2);
