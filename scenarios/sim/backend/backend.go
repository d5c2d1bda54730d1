package backend

import (
	"context"
	"net"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// Backend is one Redis server of a run as the engine sees it. The engine
// reaches servers only through it: it dials for the lock clients, reads the
// run's keys for every snapshot, moves the clock, and injects the faults a
// timeline asks for. Everything else — scheduling, time, replication on
// embedded servers, judging — is the engine's.
//
// A run's servers are all embedded or all real. Embedded ones are the
// engine's own (Embedded: miniredis on virtual time). Real ones come from
// Target.NewBackend: package realserver implements them for redis-server,
// and realredis.Connect plugs it in. Such a backend
// has its own clock (the wall clock; Advance does nothing), converts between
// real and virtual time with its RealRun, and touches only keys under the
// run's prefix.
//
// The durations the engine passes and Read returns are virtual. The engine
// calls each backend from one goroutine at a time.
type Backend interface {
	// Dial opens a connection for a lock client. Kill cuts it.
	Dial(ctx context.Context) (net.Conn, error)
	// Read returns the run's keys on the server with their TTLs in virtual
	// time left after now (-1: no expiry), sorted by key, each value cut
	// to command.MaxValue bytes (command.Cut, command.CutHead): the engine compares values by what
	// Read keeps of them. It reads outside the gate: no command of a lock
	// client, no step.
	Read(now time.Duration) ([]trace.KeyState, error)
	// Advance moves the server's clock to virtual time t, delta after the
	// last advance: keys due by then expire. A server with a clock of its
	// own (a real one) ignores it.
	Advance(t, delta time.Duration)
	// Kill makes the server unreachable for good: open connections drop,
	// new ones are refused.
	Kill()
	// Stop takes the server down for a restart: clients cannot reach it
	// until Start.
	Stop()
	// Start brings a stopped server back without the run's keys, as a
	// restart without persistence does.
	Start() error
	// Jump moves the server's clock forward by d: keys expire d early.
	Jump(d time.Duration) error
	// Close releases what the backend holds. The engine calls it last.
	Close()

	// Addr is the server's address as the user gave it, for traces and
	// error messages; empty for an embedded server.
	Addr() string
	// ClientOptions are what a lock client of this server starts from: the
	// server's address, network, credentials, database and TLS, and the
	// bounds of its network calls; a copy the caller may change. Nil for an
	// embedded server, whose clients the engine configures itself. Either
	// way the engine connects clients through Dial.
	ClientOptions() *redis.Options
	// EnvironmentError says why a command's error is the environment's and
	// not part of the lesson (a server that refuses the run's credentials,
	// a connection that broke under it): such a run has no verdict. Errors
	// the engine causes (command.NodeDownError, command.PartitionError, a
	// connection it closed) and nil replies are the lesson's. On an
	// embedded server the engine causes every error there is.
	EnvironmentError(err error) (why string, ok bool)
	// Guard lets the run's lock clients, from their next connection on,
	// send only the commands locks use, on the lock's own keys (key, keys
	// under "key:" and starting with "{key}"), inside scripts too: the
	// server answers anything else as Redis's ACL does, with NOPERM. An
	// embedded server does it itself; a real one through an ACL user made
	// for the run, which Cleanup removes. The engine calls it before the
	// first client connects.
	Guard(key string) error
	// Cleanup removes the run's keys from the server at the end of a run,
	// within a bound of its own (shorter once the run's context is
	// cancelled); last are the keys the run last saw there, for the error
	// when the server does not answer. The engine calls it on every server
	// of a real run at once, before Close.
	Cleanup(last []trace.KeyState) error
}

// Follower is a Backend whose server replicates by itself: a real replica.
// On embedded servers the engine models replication (a queue of writes due
// after the lag, in virtual time) and writes into the replica; a Follower's
// replication the servers carry, and the backend holds the stream back by
// the lag.
type Follower interface {
	Backend
	// Follow makes the server replicate primary, lag behind it, and returns
	// once it is in sync. The engine calls it as the run starts.
	Follow(primary Backend, lag time.Duration) error
	// Pending is how much of the replication stream is still on its way
	// (chunks, as the stream carries them).
	Pending() int
	// Promote makes the server a primary when its primary dies: the stream
	// is cut, and what was still on its way — lost, the count — never
	// arrives.
	Promote() (lost int, err error)
}

// ScriptStopper is a backend that can stop a script that keeps its
// server busy (a real server: SCRIPT KILL, FUNCTION KILL).
type ScriptStopper interface {
	// StopScript stops the script that keeps the server busy, if one
	// does, waiting past the server's busy threshold for it to answer. It
	// says how it stopped it ("SCRIPT KILL after the server's busy
	// threshold of 5s"), or "" with nil when no script was running.
	StopScript() (how string, err error)
}
