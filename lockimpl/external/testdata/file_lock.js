'use strict';
// A test's lock that reads files between two commands of one acquire, as
// a library reads its package.json while it connects (ioredis 5 does,
// before its ready check): it sends a SET NX PX on one connection, reads a
// file with fs.promises a hundred times, then sends a GET on another, and
// only then waits for both replies. Reading takes none of the run's time:
// both commands are in flight at once, and the run orders them (by
// command: the GET first). An agent that took the last read's close for
// quiet reported the SET alone, and the GET came after it.
const fs = require('fs');
const { createClient } = require('redis');

class NotHeld extends Error {}

exports.make = async function make(nodes, key, ttlMs) {
  const connect = async () => {
    const c = createClient({ socket: { host: nodes[0].host, port: nodes[0].port } });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  const setter = await connect();
  const getter = await connect();
  let n = 0;
  let token = null;
  return {
    async acquire() {
      const t = 'token-' + ++n;
      const set = setter.set(key, t, { PX: ttlMs, NX: true });
      for (let i = 0; i < 100; i++) await fs.promises.readFile(__filename, 'utf8');
      await getter.get(key);
      if ((await set) !== 'OK') return false;
      token = t;
      return true;
    },
    async release() {
      const t = token;
      token = null;
      if (t === null || (await setter.get(key)) !== t) throw new NotHeld(key);
      await setter.del(key);
    },
  };
};
