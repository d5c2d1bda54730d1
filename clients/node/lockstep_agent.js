'use strict';
// lockstep's agent for a lock written in JavaScript (Node).
//
// lockstep starts this program once per client of a run, with an adapter
// file (a module that makes the lock: see adapters/ and docs/external.md),
// and drives it through a control protocol of JSON lines: lockstep's orders
// on this program's stdin, the agent's reports on its stdout. The lock talks
// to lockstep's own Redis ports, where every command it sends is a move the
// scheduler orders, as a Go lock's are.
//
// The agent puts the lock on the run's clock and says when it is quiet:
//
// - @sinonjs/fake-timers fakes setTimeout, setInterval, Date and
//   performance (not setImmediate, process.nextTick or queueMicrotask,
//   which run at once); the fake clock moves only when lockstep says the
//   run's time has come ({"op": "tick", "now_ms": N}).
// - The agent counts the commands each connection to a run's port writes
//   and the replies it reads, so it knows when the lock waits for one.
// - Once nothing is left to run now (no immediate, no timer due, no
//   connection opening, no handshake reply to come), it reports: "done"
//   when the order's promise has settled, else "sleep" until the next timer
//   (replies may be awaited meanwhile) or "wait" for a reply.
//
// Every report carries "sent", the commands sent since the last one, so
// that lockstep knows how many to wait for on its ports. Commands of a
// connection's handshake are not counted: lockstep answers them itself.

const net = require('net');
const EventEmitter = require('events');
const path = require('path');

// The commands lockstep's ports answer themselves, never moves of the run
// (lockimpl/external/resp.go's Handshake).
const HANDSHAKE = new Set(['HELLO', 'CLIENT', 'SELECT', 'AUTH', 'PING', 'INFO', 'COMMAND', 'READONLY', 'SUBSCRIBE', 'UNSUBSCRIBE']);

// The control channel is the process's own stdout; what the lock's code
// prints goes to stderr, which lockstep shows with an agent's error.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
console.log = console.error;
console.info = console.error;

const realSetImmediate = global.setImmediate;
const realClearImmediate = global.clearImmediate;
const realSetTimeout = global.setTimeout;

// The kinds of libuv's work that end by themselves and that the lock waits
// for, as process.getActiveResourcesInfo names them: a file read (ioredis
// reads its package.json as it connects, and waits for it before its ready
// check), a name looked up. A file read by fs.promises is FSReqPromise, and
// then CloseReq while its file closes: the read's promise settles after
// that. Sockets, pipes and timers are not among them: a socket's replies
// are counted, and the lock's timers are fake.
function pendingWork() {
  return process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r.startsWith('FileHandle') ||
    r === 'CloseReq' || r.startsWith('GetAddrInfo') || r.startsWith('GetNameInfo') || r === 'ZlibWrap');
}

// LOCKSTEP_AGENT_DEBUG=PREFIX writes what the agent sees and says to
// PREFIX.<pid>: for finding out why a lock stalls.
const debug = process.env.LOCKSTEP_AGENT_DEBUG ? require('fs').openSync(process.env.LOCKSTEP_AGENT_DEBUG + '.' + process.pid, 'w') : null;
function log(...a) {
  if (debug !== null) require('fs').writeSync(debug, a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ') + '\n');
}

// ---- Immediates: counted, so that quiet waits for them (bluebird, which
// redlock loads, schedules its promises on setImmediate).

const immediates = new Set();
global.setImmediate = function setImmediate(fn, ...args) {
  const h = realSetImmediate(() => {
    immediates.delete(h);
    fn(...args);
  });
  immediates.add(h);
  return h;
};
global.clearImmediate = function clearImmediate(h) {
  immediates.delete(h);
  realClearImmediate(h);
};

// ---- The connections to the run's ports.

const allowed = new Set();
const tracked = new Set();
let sent = 0; // commands of the lock's sent since the last report
let given = 0; // what lockstep gave: replies to moves, connections it closed, orders
let wake = null; // resolves the agent's wait for an event

function poke() {
  if (wake) {
    const w = wake;
    wake = null;
    w();
  }
}

// RESP2 and RESP3, as far as the agent reads them: where the reply at pos
// ends, or -1 if buf does not hold all of it yet.
function replyEnd(buf, pos) {
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return -1;
  const type = String.fromCharCode(buf[pos]);
  const n = parseInt(buf.toString('latin1', pos + 1, eol), 10);
  let at = eol + 2;
  switch (type) {
    case '+': case '-': case ':': case '_': case '#': case ',': case '(':
      return at;
    case '$': case '!': case '=':
      if (n < 0) return at;
      return buf.length >= at + n + 2 ? at + n + 2 : -1;
    case '*': case '~': case '>': case '%': case '|': {
      const parts = type === '%' || type === '|' ? 2 * n : n;
      for (let i = 0; i < parts; i++) {
        at = replyEnd(buf, at);
        if (at < 0) return -1;
      }
      // An attribute comes before the reply it describes.
      return type === '|' ? replyEnd(buf, at) : at;
    }
  }
  throw new Error('lockstep agent: a reply of type ' + JSON.stringify(type));
}

// isMessage says whether the reply at pos is a Pub/Sub message: an array
// (a push, in RESP3) whose first element is "message" or "pmessage".
function isMessage(buf, pos) {
  if (buf[pos] !== 0x2a /* * */ && buf[pos] !== 0x3e /* > */) return false;
  const eol = buf.indexOf('\r\n', pos);
  const len = buf.indexOf('\r\n', eol + 2);
  if (buf[eol + 2] !== 0x24 /* $ */ || len < 0) return false;
  const n = parseInt(buf.toString('latin1', eol + 3, len), 10);
  const kind = buf.toString('latin1', len + 2, len + 2 + n);
  return kind === 'message' || kind === 'pmessage';
}

// The name of the command at pos of what a client writes (an array of
// bulk strings), and where it ends; null if buf does not hold all of it.
function commandAt(buf, pos) {
  const end = replyEnd(buf, pos);
  if (end < 0) return null;
  let name = '';
  if (buf[pos] === 0x2a /* * */) {
    const eol = buf.indexOf('\r\n', pos);
    const len = buf.indexOf('\r\n', eol + 2);
    const n = parseInt(buf.toString('latin1', eol + 3, len), 10);
    name = buf.toString('latin1', len + 2, len + 2 + n);
  } else {
    name = buf.toString('latin1', pos, buf.indexOf('\r\n', pos)).split(' ')[0];
  }
  return { name: name.toUpperCase(), end };
}

class Tracked {
  constructor(socket) {
    this.socket = socket;
    this.outBuf = Buffer.alloc(0);
    this.inBuf = Buffer.alloc(0);
    this.expect = []; // what each reply to come answers: 'h' handshake, 'm' move
    this.connected = false;
    this.moves = 0; // moves written on it
    this.subscribed = false; // it sent a SUBSCRIBE: messages may come on it
  }

  wrote(chunk, encoding) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
    this.outBuf = this.outBuf.length ? Buffer.concat([this.outBuf, b]) : b;
    let pos = 0;
    for (;;) {
      const c = commandAt(this.outBuf, pos);
      if (!c) break;
      pos = c.end;
      if (debug !== null) log('write', c.name);
      if (c.name === 'SUBSCRIBE' || c.name === 'PSUBSCRIBE') this.subscribed = true;
      if (HANDSHAKE.has(c.name)) {
        this.expect.push('h');
      } else {
        this.expect.push('m');
        this.moves++;
        sent++;
      }
    }
    this.outBuf = this.outBuf.subarray(pos);
  }

  read(chunk) {
    this.inBuf = this.inBuf.length ? Buffer.concat([this.inBuf, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      const end = replyEnd(this.inBuf, pos);
      if (end < 0) break;
      const message = this.subscribed && isMessage(this.inBuf, pos);
      pos = end;
      // A message published to the connection is something lockstep gave;
      // it answers no command.
      if (message) given++;
      else if (this.expect.shift() === 'm') given++;
    }
    this.inBuf = this.inBuf.subarray(pos);
  }
}

function socketAddr(args) {
  let opts = args[0];
  if (Array.isArray(opts)) opts = opts[0]; // net's normalized arguments
  if (opts && typeof opts === 'object') return { host: opts.host || 'localhost', port: opts.port, path: opts.path };
  if (typeof opts === 'number' || (typeof opts === 'string' && /^[0-9]+$/.test(opts))) {
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: opts };
  }
  return { path: opts };
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const a = socketAddr(args);
  const addr = a.path ? String(a.path) : a.host + ':' + a.port;
  if (!allowed.has(addr)) {
    // The lock may reach the run's nodes only: an address of its own (a
    // Redis of the machine's) is the lock's error, not a server of the run.
    const err = new Error('lockstep: the lock connects to ' + addr + ', which is none of the run\'s nodes (' +
      [...allowed].sort().join(', ') + ')');
    process.nextTick(() => this.destroy(err));
    return this;
  }
  if (!this._lockstep) {
    this._lockstep = new Tracked(this);
    tracked.add(this._lockstep);
  }
  return connect.apply(this, args);
};

const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (chunk, encoding, cb) {
  if (this._lockstep && chunk != null && typeof chunk !== 'function') this._lockstep.wrote(chunk, encoding);
  return write.call(this, chunk, encoding, cb);
};

const emit = EventEmitter.prototype.emit;
net.Socket.prototype.emit = function (event, ...args) {
  const t = this._lockstep;
  if (t) {
    if (event === 'data') {
      t.read(Buffer.isBuffer(args[0]) ? args[0] : Buffer.from(String(args[0])));
      poke();
    } else if (event === 'close') {
      // No more replies come on a closed connection. lockstep closes one
      // as a reply to a move (its node is lost): that is what it gave. A
      // connection refused (the node's port is closed while it is lost)
      // sent nothing of what the lock wrote on it, and no report has
      // counted that yet: the agent is not quiet while a connection opens.
      if (!t.connected) sent -= t.moves;
      else if (tracked.has(t) && t.expect.includes('m')) given++;
      tracked.delete(t);
      t.expect = [];
      poke();
    } else if (event === 'connect') {
      t.connected = true;
      poke();
    }
  }
  return emit.call(this, event, ...args);
};

// ---- The control channel.

const lines = [];
let partial = '';
process.stdin.on('data', (chunk) => {
  partial += chunk.toString('utf8');
  let nl;
  while ((nl = partial.indexOf('\n')) >= 0) {
    lines.push(JSON.parse(partial.slice(0, nl)));
    log('order', partial.slice(0, nl));
    partial = partial.slice(nl + 1);
    given++;
  }
  poke();
});
process.stdin.on('end', () => process.exit(0)); // lockstep has gone: so does the client

function report(fields) {
  fields.sent = sent;
  sent = 0;
  if (debug !== null) log('report', fields, 'moves', moves(), 'clock', clock && clock.now, 'imm', immediates.size, 'socks', [...tracked].map((t) => [t.socket.connecting, t.expect.join('')]), 'timers', clock && clock.timers ? clock.timers.size : 0);
  out(JSON.stringify(fields) + '\n');
}

function stimulus() {
  return new Promise((resolve) => { wake = resolve; });
}

async function nextOrder() {
  while (lines.length === 0) await stimulus();
  return lines.shift();
}

// ---- The run's clock.

let clock = null;

function nextTimer() {
  let at = null;
  if (clock && clock.timers) {
    for (const t of clock.timers.values()) {
      if (at === null || t.callAt < at) at = t.callAt;
    }
  }
  return at;
}

async function advance(nowMS) {
  if (debug !== null) log('advance', nowMS - clock.now, [...(clock.timers || new Map()).values()].map((t) => [t.callAt - clock.now, t.interval, String(t.func).slice(0, 80)]));
  if (nowMS > clock.now) await clock.tickAsync(nowMS - clock.now);
  if (debug !== null) log('advanced');
}

function turn() {
  return new Promise((resolve) => realSetImmediate(resolve));
}

// busy says what the lock still does now, of itself: an immediate to run, a
// timer due, a connection opening or a handshake's reply to come.
function busy() {
  if (immediates.size > 0) return 'immediate';
  if (pendingWork()) return 'work';
  const at = nextTimer();
  if (at !== null && at <= clock.now) return 'timer';
  for (const t of tracked) {
    if (t.socket.connecting || t.expect[0] === 'h') return 'io';
  }
  return null;
}

// settle returns once the lock has nothing left to do now.
async function settle() {
  for (;;) {
    await turn();
    const b = busy();
    if (debug !== null && b !== null) log('busy', b, [...tracked].map((t) => [t.socket.connecting, t.expect.join('')]), process.getActiveResourcesInfo());
    switch (b) {
      case null:
        return;
      case 'timer':
        await clock.tickAsync(0);
        break;
      case 'io':
        await stimulus();
        break;
      case 'work':
        // It pokes no one when it ends: look again in a millisecond.
        await new Promise((resolve) => realSetTimeout(resolve, 1));
        break;
    }
  }
}

function subscribed() {
  for (const t of tracked) if (t.subscribed) return true;
  return false;
}

function moves() {
  let n = 0;
  for (const t of tracked) n += t.expect.filter((e) => e === 'm').length;
  return n;
}

// ---- Orders.

function isNotHeld(e) {
  for (let c = e && e.constructor; c && c !== Object; c = Object.getPrototypeOf(c)) {
    if (c.name === 'NotHeld') return true;
  }
  return Boolean(e && (e.name === 'NotHeld' || e.notHeld === true));
}

function errorText(e) {
  if (e instanceof Error) return (e.name || 'Error') + ': ' + e.message;
  return String(e);
}

async function operate(lock, op) {
  try {
    if (op === 'acquire') {
      // true or false; or {held, fence} from a lock that hands out a
      // fencing token.
      const r = await lock.acquire();
      if (r !== null && typeof r === 'object') return r.held ? { result: 'held', fence: Number(r.fence) || 0 } : { result: 'refused' };
      return r ? { result: 'held' } : { result: 'refused' };
    }
    if (op === 'release') {
      await lock.release();
      return { result: 'released' };
    }
    if (op === 'renew') {
      // false: the lock was no longer its own.
      return (await lock.renew()) === false ? { result: 'not-held' } : { result: 'renewed' };
    }
    throw new Error('lockstep agent: unknown op ' + JSON.stringify(op));
  } catch (e) {
    if (isNotHeld(e)) return { result: 'not-held' };
    return { result: 'error', error: errorText(e) };
  }
}

// stirs says whether the lock, which seems to wait for nothing, does
// something within 100 ms of real time after all: work of the machine's
// that process.getActiveResourcesInfo did not show (seen on a loaded
// machine, as ioredis connects). Only a lock about to be told it never
// settles waits here.
async function stirs() {
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => realSetTimeout(resolve, 1));
    if (busy() !== null || sent > 0 || moves() > 0 || nextTimer() !== null || settledNow()) return true;
  }
  return false;
}

// run runs one order's promise to its end, reporting each time the lock
// waits for the run.
let settledNow = () => false;

async function run(promise) {
  let done = null;
  promise.then((r) => { done = r; });
  settledNow = () => done !== null;
  for (;;) {
    await settle();
    if (done) {
      report(Object.assign({ state: 'done' }, done));
      return;
    }
    const at = nextTimer();
    if (at !== null) {
      report({ state: 'sleep', until_ms: at });
    } else if (moves() > 0 || subscribed()) {
      // A reply to come, or a message on a subscribed connection.
      report({ state: 'wait' });
    } else if (await stirs()) {
      continue;
    } else {
      report({ state: 'done', result: 'error', error: 'the lock\'s promise never settles: it waits for no reply and no timer' });
      return;
    }
    // What the run gives back: a reply (or a closed connection), or a tick.
    const seen = given;
    while (given === seen) await stimulus();
    if (lines.length > 0) {
      const msg = lines.shift();
      if (msg.op !== 'tick') throw new Error('lockstep agent: ' + JSON.stringify(msg) + ' while the lock waits');
      await advance(msg.now_ms);
    }
  }
}

function seeded(seed) {
  // mulberry32: the lock's Math.random, the same run after run.
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const init = await nextOrder();
  if (init.op !== 'init') throw new Error('lockstep agent: ' + JSON.stringify(init) + ' before init');
  for (const n of init.nodes) allowed.add(n);
  const FakeTimers = require('@sinonjs/fake-timers');
  clock = FakeTimers.install({
    now: init.now_ms,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance', 'hrtime'],
  });
  Math.random = seeded(init.seed || 1);
  const nodes = init.nodes.map((a) => {
    const i = a.lastIndexOf(':');
    return { host: a.slice(0, i), port: Number(a.slice(i + 1)) };
  });
  let lock;
  await run((async () => {
    try {
      const adapter = require(path.resolve(init.adapter));
      lock = await adapter.make(nodes, init.key, init.ttl_ms, init.options || {});
      // A lock with renew() has it called while it holds, as a watchdog does.
      return { result: 'ready', renews: typeof lock.renew === 'function' };
    } catch (e) {
      return { result: 'error', error: errorText(e) };
    }
  })());
  for (;;) {
    const msg = await nextOrder();
    log('order taken', msg);
    if (msg.now_ms) await advance(msg.now_ms);
    if (msg.op === 'tick') {
      await settle();
      report({ state: 'done', result: 'idle' });
      continue;
    }
    await run(operate(lock, msg.op));
  }
}

main().catch((e) => {
  process.stderr.write('lockstep agent: ' + (e && e.stack ? e.stack : String(e)) + '\n');
  process.exit(1);
});
