"""lockstep's agent for a lock written in Python.

lockstep starts this program once per client of a run, with an adapter
file (a Python module that makes the lock: see adapters/ and
docs/external.md), and drives it through a control protocol of JSON lines:
lockstep's on this program's stdin, the agent's reports on its stdout. The
lock talks to lockstep's own Redis ports, where every command it sends is
a move the scheduler orders, as a Go lock's are.

The agent puts the lock on the run's clock and says when it is quiet:

- redis.lock's clock (its mod_time: monotonic and sleep) is the run's. A
  sleep reports {"state": "sleep", "until_ms": T} and waits for lockstep's
  {"op": "tick", "now_ms": N} with N >= T.
- Before it blocks for a reply, a connection reports {"state": "wait"}.
- The end of an operation reports {"state": "done", "result": …}.

Every report carries "sent", the commands sent since the last one, so
that lockstep knows how many to wait for on its ports. Commands of a
connection's handshake are not counted: lockstep answers them itself.
"""

import importlib.util
import json
import sys

import redis
import redis.connection
import redis.exceptions
import redis.lock

# The commands lockstep's ports answer themselves, never moves of the run
# (external/resp.go's handshake).
HANDSHAKE = {b"HELLO", b"CLIENT", b"SELECT", b"AUTH", b"PING", b"INFO", b"COMMAND", b"READONLY", b"SUBSCRIBE", b"UNSUBSCRIBE"}

# The control channel is the process's own stdout; what the lock's code
# prints goes to stderr, which lockstep shows with an agent's error.
_out = sys.stdout
_in = sys.stdin
sys.stdout = sys.stderr


class Agent:
    def __init__(self):
        self.now_ms = 0
        self.sent = 0

    def report(self, **fields):
        fields["sent"], self.sent = self.sent, 0
        _out.write(json.dumps(fields, separators=(",", ":")) + "\n")
        _out.flush()

    def read(self):
        line = _in.readline()
        if not line:
            sys.exit(0)  # lockstep has gone: so does the client
        return json.loads(line)

    def sleep_until(self, until_ms):
        """Blocks until the run's time reaches until_ms."""
        while self.now_ms < until_ms:
            self.report(state="sleep", until_ms=until_ms)
            msg = self.read()
            if msg.get("op") != "tick":
                raise RuntimeError("lockstep agent: %r while asleep" % (msg,))
            self.now_ms = max(self.now_ms, msg["now_ms"])


AGENT = Agent()


class RunClock:
    """The run's time, as redis.lock reads it (time.monotonic, time.sleep)."""

    @staticmethod
    def monotonic():
        return AGENT.now_ms / 1000.0

    @staticmethod
    def time():
        return AGENT.now_ms / 1000.0

    @staticmethod
    def sleep(seconds):
        AGENT.sleep_until(AGENT.now_ms + int(round(seconds * 1000)))


def _count(name):
    if isinstance(name, str):
        name = name.encode()
    if name.upper() not in HANDSHAKE:
        AGENT.sent += 1


_pack_command = redis.connection.Connection.pack_command
_read_response = redis.connection.Connection.read_response


def pack_command(self, *args):
    # Counted once packed: a command redis-py refuses to pack (a None
    # argument) is never sent.
    packed = _pack_command(self, *args)
    if args:
        # A command may come as one string with its arguments ("SCRIPT LOAD").
        _count(args[0].split()[0] if isinstance(args[0], (str, bytes)) else args[0])
    return packed


def read_response(self, *args, **kwargs):
    AGENT.report(state="wait")
    return _read_response(self, *args, **kwargs)


_connect = redis.connection.Connection._connect
ALLOWED = set()


def connect(self):
    # The lock may reach the run's nodes only: an address of its own (a
    # Redis of the machine's) is the lock's error, not a server of the run.
    if "%s:%s" % (self.host, self.port) not in ALLOWED:
        raise redis.exceptions.ConnectionError(
            "lockstep: the lock connects to %s:%s, which is none of the run's nodes (%s)"
            % (self.host, self.port, ", ".join(sorted(ALLOWED))))
    return _connect(self)


redis.connection.Connection._connect = connect
redis.connection.Connection.pack_command = pack_command
redis.connection.Connection.read_response = read_response
redis.lock.mod_time = RunClock


def is_not_held(e):
    """Whether e says the lock was no longer the client's, and was left
    alone: redis-py's LockNotOwnedError, or an exception class an adapter
    names NotHeld."""
    return isinstance(e, redis.exceptions.LockNotOwnedError) or any(
        c.__name__ == "NotHeld" for c in type(e).__mro__)


def load_adapter(path):
    spec = importlib.util.spec_from_file_location("lockstep_adapter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    init = AGENT.read()
    AGENT.now_ms = init["now_ms"]
    ALLOWED.update(init["nodes"])
    adapter = load_adapter(init["adapter"])
    nodes = [redis.Redis(host=h, port=int(p)) for h, p in (a.rsplit(":", 1) for a in init["nodes"])]
    lock = adapter.make(nodes, init["key"], init["ttl_ms"], init.get("options") or {})
    # A lock with renew() has it called while it holds, as a watchdog does.
    AGENT.report(state="done", result="ready", renews=callable(getattr(lock, "renew", None)))
    while True:
        msg = AGENT.read()
        op = msg.get("op")
        # Every order carries the run's time: the clock stood still while
        # the agent had nothing to do.
        AGENT.now_ms = max(AGENT.now_ms, msg.get("now_ms", 0))
        if op == "tick":
            AGENT.now_ms = max(AGENT.now_ms, msg["now_ms"])
            AGENT.report(state="done", result="idle")
            continue
        try:
            if op == "acquire":
                result = "held" if lock.acquire() else "refused"
            elif op == "release":
                lock.release()
                result = "released"
            elif op == "renew":
                result = "not-held" if lock.renew() is False else "renewed"
            else:
                raise RuntimeError("lockstep agent: unknown op %r" % (op,))
        except Exception as e:
            if not is_not_held(e):
                AGENT.report(state="done", result="error", error="%s: %s" % (type(e).__name__, e))
                continue
            result = "not-held"
        AGENT.report(state="done", result=result)


if __name__ == "__main__":
    main()
