package sim

import (
	"bufio"
	"context"
	"io"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/alicebob/miniredis/v2"
	mrserver "github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"
)

// Backend is one Redis server of a run as the engine sees it. The engine
// reaches servers only through it: it dials for the lock clients, reads the
// run's keys for every snapshot, moves the clock, and injects the faults a
// timeline asks for. Everything else — scheduling, time, replication on
// embedded servers, judging — is the engine's.
//
// A run's servers are all embedded or all real. Embedded ones are the
// engine's own (miniredis on virtual time; not exported). Real ones come from
// Target.NewBackend: package github.com/lockstep-sim/lockstep/scenarios/sim/realserver implements
// them for redis-server, and realredis.Connect plugs it in. Such a backend
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
	// to MaxValue bytes (Cut, CutHead): the engine compares values by what
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
	// the engine causes (NodeDownError, PartitionError, a connection it
	// closed) and nil replies are the lesson's. On an embedded server the
	// engine causes every error there is.
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

// memBackend is an embedded miniredis server on virtual time: the engine's
// own backend.
type memBackend struct {
	m      *miniredis.Miniredis
	guard  []string      // the locks' keys, once guarded
	slots  *slotRule     // a cluster node's slot rule (Setup.Cluster); nil: none
	now    time.Duration // the world's time at the last advance
	skew   time.Duration // how far the server's clock runs ahead of the world's
	killed bool
	conns  []net.Conn // the server's ends of the connections serve made
}

// memServers are embedded servers that ran a world before and were emptied
// for the next, up to memServersMax of them: a server registers its two
// hundred-odd commands when it first serves a connection, and the explorer
// builds a world for every schedule it tries (a 10-move replay of redlock
// took 1.1 ms with new servers, 0.6 ms with these).
var memServers struct {
	sync.Mutex
	free []*miniredis.Miniredis
}

const memServersMax = 64

func newMemBackend() *memBackend {
	var m *miniredis.Miniredis
	memServers.Lock()
	if n := len(memServers.free); n > 0 {
		m, memServers.free = memServers.free[n-1], memServers.free[:n-1]
	}
	memServers.Unlock()
	if m == nil {
		m = miniredis.NewMiniRedis()
	} else {
		// Not its last world's context, whose channel may belong to that
		// world's bubble.
		m.Ctx, m.CtxCancel = context.WithCancel(context.Background())
	}
	m.SetTime(epoch)
	return &memBackend{m: m}
}

// scriptFlush empties a server's script cache, as SCRIPT FLUSH does. A
// server that ran a script knows its SHA1; the next world's EVALSHA must
// not.
var scriptFlush = []string{"SCRIPT", "FLUSH"}

// Dial connects to the embedded server. The first connection of a new
// server starts it (miniredis's own Dial); a server that served a world
// before serves the next one's connections with the engine's loop
// (memserve.go). A guarded server gets its hook then (miniredis keeps hooks
// on the running server).
func (b *memBackend) Dial(context.Context) (net.Conn, error) {
	var c net.Conn
	var err error
	if srv := b.m.Server(); srv == nil || b.killed {
		c, err = b.m.Dial()
	} else {
		c = b.serve(srv)
	}
	if err == nil && (len(b.guard) > 0 || b.slots != nil) {
		b.m.Server().SetPreHook(b.refuse)
	}
	return c, err
}

// Guard has the server refuse what the run's ACL user would be refused on a
// real one. Each key it is given is one more lock's: a command passes when
// all its keys are one of them (clients of a lesson that take locks of their
// own, Program.Key).
func (b *memBackend) Guard(key string) error {
	if !slices.Contains(b.guard, key) {
		b.guard = append(b.guard, key)
	}
	return nil
}

// refuse is the guarded server's hook: it answers a command outside the
// guard's rules with Redis's refusal, and lets the rest run. A script's
// commands come through it too, each on a peer of its own. A cluster node
// refuses a command across slots first, as Redis checks the slot before
// the ACL.
func (b *memBackend) refuse(p *mrserver.Peer, cmd string, args ...string) bool {
	all := append([]string{cmd}, args...)
	nested := inScript(p)
	r := ""
	if b.slots != nil {
		r = b.slots.check(all, nested)
	}
	if r == "" && len(b.guard) > 0 {
		r = command.RefusalOf(all, b.guard, nested)
	}
	if r != "" {
		p.WriteError(r)
	}
	return r != ""
}

// inScript says whether a command comes from a script: miniredis runs a
// script's redis.call on a peer whose context says it is nested (an
// unexported field, read with reflect; a test keeps it honest).
func inScript(p *mrserver.Peer) bool {
	v := reflect.ValueOf(p.Ctx)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	f := v.Elem().FieldByName("nested")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// Advance sets miniredis's TIME and expires keys together, so they agree.
func (b *memBackend) Advance(t, delta time.Duration) {
	b.now = t
	b.m.SetTime(epoch.Add(t + b.skew))
	b.m.FastForward(delta)
}

func (b *memBackend) Kill() {
	b.killed = true
	b.m.Close()
	for _, c := range b.conns {
		c.Close()
	}
}

// Stop: the gate refuses commands to a server that is down; the embedded
// server itself keeps running, so connections survive the "restart".
func (b *memBackend) Stop() {}

// Start brings the server back empty, as a real restart without
// persistence does: no keys and no scripts (Redis keeps its script cache in
// memory only, so an EVALSHA after a restart gets NOSCRIPT there too). The
// flush goes past the guard's hook, which would refuse SCRIPT FLUSH from a
// client, and the hook is back before the server is up again.
func (b *memBackend) Start() error {
	b.m.FlushAll()
	if srv := b.m.Server(); srv != nil {
		srv.SetPreHook(nil)
		srv.Dispatch(mrserver.NewPeer(bufio.NewWriter(io.Discard)), scriptFlush)
		if len(b.guard) > 0 || b.slots != nil {
			srv.SetPreHook(b.refuse)
		}
	}
	return nil
}

func (b *memBackend) Jump(d time.Duration) error {
	b.skew += d
	b.m.SetTime(epoch.Add(b.now + b.skew))
	b.m.FastForward(d)
	return nil
}

// Close empties the server for another world: no keys, no scripts. Its
// world has ended, every goroutine of it with it (World.closeServers). A
// killed server, one that never served, and one the pool has no room for
// are dropped, not closed: no goroutine serves them any more, and
// miniredis's Close would wait on a WaitGroup of a bubble that has ended
// (memserve.go), which Go does not allow outside it.
func (b *memBackend) Close() {
	srv := b.m.Server()
	if b.killed || srv == nil {
		return
	}
	b.m.FlushAll()
	srv.SetPreHook(nil)
	srv.Dispatch(mrserver.NewPeer(bufio.NewWriter(io.Discard)), scriptFlush)
	memServers.Lock()
	defer memServers.Unlock()
	if len(memServers.free) < memServersMax {
		memServers.free = append(memServers.free, b.m)
	}
}

// An embedded server has no address of its own, leaves the lock clients'
// options to the engine, meets no error the engine did not cause, and takes
// the run's keys with it when it closes.

func (b *memBackend) Addr() string                          { return "" }
func (b *memBackend) ClientOptions() *redis.Options         { return nil }
func (b *memBackend) EnvironmentError(error) (string, bool) { return "", false }
func (b *memBackend) Cleanup([]trace.KeyState) error        { return nil }

// Read uses miniredis's direct API: no command, no step.
func (b *memBackend) Read(time.Duration) ([]trace.KeyState, error) {
	m := b.m
	var keys []trace.KeyState
	for _, k := range m.Keys() {
		ks := trace.KeyState{Key: k, Type: m.Type(k), TTL: -1}
		switch v := b.stored(k); ks.Type {
		case "string":
			ks.Value = command.Cut(v.str, command.MaxValue)
		case "hash":
			pairs := make([]string, 0, len(v.hash)/2)
			for i := 0; i < len(v.hash); i += 2 {
				pairs = append(pairs, v.hash[i]+"="+v.hash[i+1])
			}
			ks.Value = command.Cut(strings.Join(pairs, " "), command.MaxValue)
		default:
			ks.Value = v.str
		}
		if ttl := m.TTL(k); ttl > 0 {
			ks.TTL = ttl
		}
		keys = append(keys, ks)
	}
	return keys, nil
}

// stored is a key's value whole, as replication copies it from one
// embedded server to another; a snapshot keeps only its start (MaxValue).
type stored struct {
	typ  string
	str  string   // a string's value; another type's name, "(list)"
	hash []string // a hash's fields, sorted, each followed by its value
}

// stored reads key k whole.
func (b *memBackend) stored(k string) stored {
	m := b.m
	v := stored{typ: m.Type(k)}
	switch v.typ {
	case "string":
		v.str, _ = m.Get(k)
	case "hash":
		fields, _ := m.HKeys(k)
		slices.Sort(fields)
		for _, f := range fields {
			v.hash = append(v.hash, f, m.HGet(k, f))
		}
	default:
		v.str = "(" + v.typ + ")"
	}
	return v
}

// put writes key k as replication delivers it: value, fields, what is left
// of its TTL. A type other than a string or a hash arrives as a string of
// its name.
func (b *memBackend) put(k string, v stored, ttl time.Duration) {
	m := b.m
	m.Del(k)
	if v.typ == "hash" {
		m.HSet(k, v.hash...)
	} else {
		_ = m.Set(k, v.str)
	}
	if ttl > 0 {
		m.SetTTL(k, ttl)
	}
}

func (b *memBackend) del(key string) { b.m.Del(key) }
