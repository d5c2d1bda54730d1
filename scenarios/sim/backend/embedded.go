package backend

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

// This file is the engine's own backend, an embedded server (Embedded):
// miniredis on virtual time, the guard's and a cluster's refusals as a
// hook, and the servers a process keeps for its next worlds.

// Embedded is an embedded miniredis server on virtual time: the engine's
// own backend.
type Embedded struct {
	m      *miniredis.Miniredis
	guard  []string      // the locks' keys, once guarded
	shared []string      // keys every lock of the library shares (Share)
	slots  *slotRule     // a cluster node's slot rule (sim.Setup.Cluster); nil: none
	epoch  time.Time     // virtual time zero, as TIME reports it
	now    time.Duration // the world's time at the last advance
	skew   time.Duration // how far the server's clock runs ahead of the world's
	killed bool
	conns  []net.Conn // the server's ends of the connections serve made
	lua    *interp    // the world's Lua interpreter (script.go); nil: none yet
	evals  int        // the scripts the world's interpreters ran (script.go)
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

// NewEmbedded is an embedded server whose clock starts at epoch, virtual
// time zero; cluster: it is a Redis Cluster node, which refuses a command
// across slots (slot.go).
func NewEmbedded(epoch time.Time, cluster bool) *Embedded {
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
	b := &Embedded{m: m, epoch: epoch}
	if cluster {
		b.slots = &slotRule{script: -1}
	}
	return b
}

// scriptFlush empties a server's script cache, as SCRIPT FLUSH does. A
// server that ran a script knows its SHA1; the next world's EVALSHA must
// not.
var scriptFlush = []string{"SCRIPT", "FLUSH"}

// Dial connects to the embedded server. The first connection of a new
// server starts it (miniredis's own Dial); a server that served a world
// before serves the next one's connections with the engine's loop
// (memserve.go). The server gets the world's hook then (miniredis keeps
// hooks on the running server).
func (b *Embedded) Dial(context.Context) (net.Conn, error) {
	var c net.Conn
	var err error
	if srv := b.m.Server(); srv == nil || b.killed {
		c, err = b.m.Dial()
	} else {
		c = b.serve(srv)
	}
	if err == nil {
		b.m.Server().SetPreHook(b.hook)
	}
	return c, err
}

// Guard has the server refuse what the run's ACL user would be refused on a
// real one. Each key it is given is one more lock's: a command passes when
// all its keys are one of them (clients of a lesson that take locks of their
// own, sim.Program.Key).
func (b *Embedded) Guard(key string) error {
	if !slices.Contains(b.guard, key) {
		b.guard = append(b.guard, key)
	}
	return nil
}

// Share lets the lock use key, and the keys under it, beside its own: a
// key every lock of its library shares (lockimpl.Info.SharedKeys).
func (b *Embedded) Share(key string) {
	if !slices.Contains(b.shared, key) {
		b.shared = append(b.shared, key)
	}
}

// hook sees every command before miniredis runs it: it refuses what the
// guard and a cluster's slots refuse, runs scripts in the world's
// interpreter (script.go), and ends that interpreter at SCRIPT FLUSH (from
// a client: a script's is refused, and runs under the server's lock). It
// says whether it answered the command.
func (b *Embedded) hook(p *mrserver.Peer, cmd string, args ...string) bool {
	if b.refuse(p, cmd, args...) {
		return true
	}
	switch cmd {
	case "EVAL", "EVALSHA":
		return b.eval(p, cmd, args)
	case "SCRIPT":
		if len(args) > 0 && strings.EqualFold(args[0], "FLUSH") && !inScript(p) {
			b.dropInterpreter()
		}
	}
	return false
}

// refuse answers a command outside the guard's rules with Redis's refusal,
// and lets the rest run. A script's commands come through it too, each on
// a peer of its own. A cluster node refuses a command across slots first,
// as Redis checks the slot before the ACL.
func (b *Embedded) refuse(p *mrserver.Peer, cmd string, args ...string) bool {
	if len(b.guard) == 0 && b.slots == nil {
		return false
	}
	all := append([]string{cmd}, args...)
	nested := inScript(p)
	r := ""
	if b.slots != nil {
		r = b.slots.check(all, nested)
	}
	if r == "" && len(b.guard) > 0 {
		r = command.RefusalOf(all, b.guard, b.shared, nested)
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
func (b *Embedded) Advance(t, delta time.Duration) {
	b.now = t
	b.m.SetTime(b.epoch.Add(t + b.skew))
	b.m.FastForward(delta)
}

// Kill closes the server and every connection it serves.
func (b *Embedded) Kill() {
	b.killed = true
	b.dropInterpreter()
	b.m.Close()
	for _, c := range b.conns {
		c.Close()
	}
}

// Stop: the gate refuses commands to a server that is down; the embedded
// server itself keeps running, so connections survive the "restart".
func (b *Embedded) Stop() {}

// Start brings the server back empty, as a real restart without
// persistence does: no keys and no scripts (Redis keeps its script cache in
// memory only, so an EVALSHA after a restart gets NOSCRIPT there too). The
// flush goes past the guard's hook, which would refuse SCRIPT FLUSH from a
// client, and the hook is back before the server is up again.
func (b *Embedded) Start() error {
	b.m.FlushAll()
	b.dropInterpreter()
	if srv := b.m.Server(); srv != nil {
		srv.SetPreHook(nil)
		srv.Dispatch(discardPeer(), scriptFlush)
		srv.SetPreHook(b.hook)
	}
	return nil
}

// Jump moves the server's clock d ahead of the world's: its keys expire d
// early.
func (b *Embedded) Jump(d time.Duration) error {
	b.skew += d
	b.m.SetTime(b.epoch.Add(b.now + b.skew))
	b.m.FastForward(d)
	return nil
}

// Close empties the server for another world: no keys, no scripts. Its
// world has ended, every goroutine of it with it (sim's fleet.closeServers). A
// killed server, one that never served, and one the pool has no room for
// are dropped, not closed: no goroutine serves them any more, and
// miniredis's Close would wait on a WaitGroup of a bubble that has ended
// (memserve.go), which Go does not allow outside it.
func (b *Embedded) Close() {
	srv := b.m.Server()
	if b.killed || srv == nil {
		return
	}
	b.m.FlushAll()
	b.dropInterpreter()
	srv.SetPreHook(nil)
	srv.Dispatch(discardPeer(), scriptFlush)
	memServers.Lock()
	defer memServers.Unlock()
	if len(memServers.free) < memServersMax {
		memServers.free = append(memServers.free, b.m)
	}
}

// discardPeer is a connection whose replies go nowhere: a small buffer
// (SCRIPT FLUSH answers +OK), not bufio's 4 KiB, which every world's end
// allocated.
func discardPeer() *mrserver.Peer {
	return mrserver.NewPeer(bufio.NewWriterSize(io.Discard, 16))
}

// Addr is empty: an embedded server has no address of its own.
func (b *Embedded) Addr() string { return "" }

// ClientOptions is nil: the engine configures an embedded server's lock
// clients itself.
func (b *Embedded) ClientOptions() *redis.Options { return nil }

// EnvironmentError says no: an embedded server meets no error the engine
// did not cause.
func (b *Embedded) EnvironmentError(error) (string, bool) { return "", false }

// Cleanup does nothing: an embedded server takes the run's keys with it
// when it closes.
func (b *Embedded) Cleanup([]trace.KeyState) error { return nil }

// Read uses miniredis's direct API: no command, no step.
func (b *Embedded) Read(time.Duration) ([]trace.KeyState, error) {
	m := b.m
	var keys []trace.KeyState
	for _, k := range m.Keys() {
		ks := trace.KeyState{Key: k, Type: m.Type(k), TTL: -1}
		switch v := b.Stored(k); ks.Type {
		case "string":
			ks.Value = command.Cut(v.Str, command.MaxValue)
		case "hash":
			pairs := make([]string, 0, len(v.Hash)/2)
			for i := 0; i < len(v.Hash); i += 2 {
				pairs = append(pairs, v.Hash[i]+"="+v.Hash[i+1])
			}
			ks.Value = command.Cut(strings.Join(pairs, " "), command.MaxValue)
		default:
			ks.Value = v.Str
		}
		if ttl := m.TTL(k); ttl > 0 {
			ks.TTL = ttl
		}
		keys = append(keys, ks)
	}
	return keys, nil
}

// Stored is a key's value whole, as replication copies it from one
// embedded server to another; a snapshot keeps only its start (MaxValue).
type Stored struct {
	Type string
	Str  string   // a string's value; another type's name, "(list)"
	Hash []string // a hash's fields, sorted, each followed by its value
}

// Stored reads key k whole.
func (b *Embedded) Stored(k string) Stored {
	m := b.m
	v := Stored{Type: m.Type(k)}
	switch v.Type {
	case "string":
		v.Str, _ = m.Get(k)
	case "hash":
		fields, _ := m.HKeys(k)
		slices.Sort(fields)
		for _, f := range fields {
			v.Hash = append(v.Hash, f, m.HGet(k, f))
		}
	default:
		v.Str = "(" + v.Type + ")"
	}
	return v
}

// Put writes key k as replication delivers it: value, fields, what is left
// of its TTL. A type other than a string or a hash arrives as a string of
// its name.
func (b *Embedded) Put(k string, v Stored, ttl time.Duration) {
	m := b.m
	m.Del(k)
	if v.Type == "hash" {
		m.HSet(k, v.Hash...)
	} else {
		_ = m.Set(k, v.Str)
	}
	if ttl > 0 {
		m.SetTTL(k, ttl)
	}
}

// Del deletes key, as replication delivers a deletion.
func (b *Embedded) Del(key string) { b.m.Del(key) }
