package sim

import (
	"context"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// backend is one Redis server a run talks to: embedded (miniredis, virtual
// time) or real (redis-server, real time). The engine reaches servers only
// through it.
type backend interface {
	// dial opens a connection for a client.
	dial(ctx context.Context) (net.Conn, error)
	// read returns the run's keys on the server with their TTLs in virtual
	// time, sorted by key; now is the virtual time of the read.
	read(now time.Duration) ([]KeyState, error)
	// advance moves the server's clock to virtual time t, delta after the
	// last advance (embedded servers only; real ones have their own clock).
	advance(t, delta time.Duration)
	// kill makes the server unreachable: open connections drop, new ones
	// are refused by the gate.
	kill()
	// stop takes the server down for a restart: clients cannot reach it
	// until start.
	stop()
	// start brings a stopped server back without the run's keys, as a
	// restart without persistence does.
	start() error
	// jump moves the server's clock forward by d (virtual): keys expire d
	// early.
	jump(d time.Duration) error
	// close releases what the backend holds.
	close()
}

// memBackend is an embedded miniredis server on virtual time.
type memBackend struct {
	m    *miniredis.Miniredis
	now  time.Duration // the world's time at the last advance
	skew time.Duration // how far the server's clock runs ahead of the world's
}

func newMemBackend() *memBackend {
	m := miniredis.NewMiniRedis()
	m.SetTime(epoch)
	return &memBackend{m: m}
}

func (b *memBackend) dial(context.Context) (net.Conn, error) { return b.m.Dial() }

// advance sets miniredis's TIME and expires keys together, so they agree.
func (b *memBackend) advance(t, delta time.Duration) {
	b.now = t
	b.m.SetTime(epoch.Add(t + b.skew))
	b.m.FastForward(delta)
}

func (b *memBackend) kill() { b.m.Close() }

// stop: the gate refuses commands to a server that is down; the embedded
// server itself keeps running, so connections survive the "restart".
func (b *memBackend) stop() {}

func (b *memBackend) start() error {
	b.m.FlushAll()
	return nil
}

func (b *memBackend) jump(d time.Duration) error {
	b.skew += d
	b.m.SetTime(epoch.Add(b.now + b.skew))
	b.m.FastForward(d)
	return nil
}

func (b *memBackend) close() { b.m.Close() }

// read uses miniredis's direct API: no command, no step.
func (b *memBackend) read(time.Duration) ([]KeyState, error) {
	m := b.m
	var keys []KeyState
	for _, k := range m.Keys() {
		ks := KeyState{Key: k, Type: m.Type(k), TTL: -1}
		switch ks.Type {
		case "string":
			ks.Value, _ = m.Get(k)
		case "hash":
			fields, _ := m.HKeys(k)
			slices.Sort(fields)
			pairs := make([]string, len(fields))
			for i, f := range fields {
				pairs[i] = f + "=" + m.HGet(k, f)
			}
			ks.Value = strings.Join(pairs, " ")
		default:
			ks.Value = "(" + ks.Type + ")"
		}
		if ttl := m.TTL(k); ttl > 0 {
			ks.TTL = ttl
		}
		keys = append(keys, ks)
	}
	return keys, nil
}

// put writes a key as replication delivers it: value, fields, what is left of
// its TTL.
func (b *memBackend) put(k KeyState, ttl time.Duration) {
	m := b.m
	m.Del(k.Key)
	if k.Type == "hash" {
		var fv []string
		for _, pair := range strings.Fields(k.Value) {
			f, v, _ := strings.Cut(pair, "=")
			fv = append(fv, f, v)
		}
		m.HSet(k.Key, fv...)
	} else {
		_ = m.Set(k.Key, k.Value)
	}
	if ttl > 0 {
		m.SetTTL(k.Key, ttl)
	}
}

func (b *memBackend) del(key string) { b.m.Del(key) }
