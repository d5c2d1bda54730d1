'use strict';
// A test's lock that waits on Pub/Sub, as Redisson's lock() does: a
// refused acquire waits for the holder's release message (its release
// script PUBLISHes it) or a minute, whichever comes first, and tries
// again. A waiter gets the lock as the holder's release runs, if the
// message reaches it.
const { createClient } = require('redis');

const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    redis.call('publish', KEYS[1] .. ':released', ARGV[1])
    return 1
end
return 0
`;

class NotHeld extends Error {}

exports.make = async function make(nodes, key, ttlMs) {
  const client = createClient({ socket: { host: nodes[0].host, port: nodes[0].port } });
  client.on('error', () => {});
  await client.connect();
  const subscriber = client.duplicate();
  subscriber.on('error', () => {});
  await subscriber.connect();
  let wake = null;
  await subscriber.subscribe(key + ':released', () => { if (wake) wake(); });
  let n = 0;
  let token = null;
  return {
    async acquire() {
      const t = 'token-' + ++n;
      while ((await client.set(key, t, { PX: ttlMs, NX: true })) !== 'OK') {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 60000);
          wake = () => { clearTimeout(timer); wake = null; resolve(); };
        });
      }
      token = t;
      return true;
    },
    async release() {
      const t = token;
      token = null;
      if ((await client.eval(RELEASE, { keys: [key], arguments: [t || ''] })) === 0) throw new NotHeld(key);
    },
  };
};
