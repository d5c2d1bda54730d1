package lockimpl_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

const (
	testKey = "lock:test"
	testTTL = 30 * time.Second
)

// tokenNames are the implementations whose value is an owner token and whose
// Release checks it.
var tokenNames = []string{"uuid-get-del", "uuid-lua", "uuid-lua-watchdog", "redlock", "fenced", "reentrant", "reentrant-local"}

// constNames are the implementations whose value is a constant and whose
// Release is a bare DEL.
var constNames = []string{"setnx", "setnx-expire", "set-nx-ex"}

// tokenSource hands out readable owner tokens: A#1, A#2, ...
type tokenSource struct {
	prefix string
	n      atomic.Int64
}

func (s *tokenSource) Next() string { return fmt.Sprintf("%s#%d", s.prefix, s.n.Add(1)) }

// Drawn is how many tokens have been handed out.
func (s *tokenSource) Drawn() int { return int(s.n.Load()) }

// cluster is a set of independent miniredis servers: one for most locks,
// five for Redlock.
type cluster struct {
	servers []*miniredis.Miniredis
	// failFast makes the handles' clients give up on a down server at once
	// instead of after go-redis's hidden dial and command retries (seconds
	// of backoff per command). The locks never rely on those retries.
	failFast bool
}

func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	cl := &cluster{}
	for range n {
		cl.servers = append(cl.servers, miniredis.RunT(t))
	}
	return cl
}

// clusterFor starts as many servers as implementation name needs.
func clusterFor(t *testing.T, name string) *cluster {
	t.Helper()
	return newCluster(t, lookup(t, name).Nodes)
}

func newClient(t *testing.T, m *miniredis.Miniredis, failFast bool) *redis.Client {
	t.Helper()
	opt := &redis.Options{Addr: m.Addr()}
	if failFast {
		opt.MaxRetries = -1   // 0 would mean 3 retries with backoff
		opt.DialerRetries = 1 // 0 would mean 5 dial attempts
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// handle is one client's lock handle with everything the test needs to
// observe it: its own go-redis clients, token source, clock and goroutines.
//
// A lock over several nodes (Redlock, redsync) bounds each node's command
// with a deadline of its own (context.WithTimeout: Redlock's per-node
// timeout is 150ms under the tests' lease), on the clock the time package
// gives it. Its handle's TryAcquire and Release run in a synctest bubble, as
// the simulator runs lock code: the bubble's clock stands still while a
// command waits on the network, so a node times out when it says nothing
// (the stall hook), never because a loaded machine was slow to answer. The
// single-node locks keep time by env.Clock only, the test's fakeClock, whose
// channels are used from the test's goroutine: they run outside a bubble.
type handle struct {
	lockimpl.Lock
	env    lockimpl.Env
	tokens *tokenSource
	clock  *fakeClock
	gos    *goTracker
	bubble *bubble.Bubble // nil for a single-node lock
}

// TryAcquire is the lock's, run in the handle's bubble.
func (h *handle) TryAcquire(ctx context.Context) (ok bool, err error) {
	h.do(ctx, func() { ok, err = h.Lock.TryAcquire(ctx) })
	return ok, err
}

// Release is the lock's, run in the handle's bubble.
func (h *handle) Release(ctx context.Context) (err error) {
	h.do(ctx, func() { err = h.Lock.Release(ctx) })
	return err
}

// do runs f in the handle's bubble, if it has one. ctx comes from outside
// the bubble: its Done channel, made on the first call, is made here, so
// that it belongs to no bubble (a channel made in one handle's bubble cannot
// be used from another's, and the tests share t.Context() between handles).
func (h *handle) do(ctx context.Context, f func()) {
	if h.bubble == nil {
		f()
		return
	}
	ctx.Done()
	h.bubble.Do(f)
}

// handle builds implementation name's lock for a client whose tokens start
// with prefix ("A" gives A#1, A#2, ...). Each handle has its own connections.
func (cl *cluster) handle(t *testing.T, name, prefix string) *handle {
	t.Helper()
	info := lookup(t, name)
	h := &handle{tokens: &tokenSource{prefix: prefix}, clock: newFakeClock(), gos: &goTracker{}}
	if info.Nodes > 1 {
		h.bubble = bubble.New()
		t.Cleanup(func() {
			if err := h.bubble.Close(hangGuard); err != nil {
				t.Errorf("%s's bubble: %v", prefix, err)
			}
		})
	}
	var nodes []*redis.Client
	for _, m := range cl.servers[:info.Nodes] {
		nodes = append(nodes, newClient(t, m, cl.failFast))
	}
	h.env = lockimpl.Env{
		Nodes: nodes,
		Key:   testKey,
		TTL:   testTTL,
		Clock: h.clock,
		Token: h.tokens.Next,
		Go:    h.gos.Go,
	}
	h.Lock = info.New(h.env)
	return h
}

func lookup(t *testing.T, name string) lockimpl.Info {
	t.Helper()
	info, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func mustAcquire(t *testing.T, l lockimpl.Lock) {
	t.Helper()
	ok, err := l.TryAcquire(t.Context())
	if err != nil {
		t.Fatalf("TryAcquire: %v", err)
	}
	if !ok {
		t.Fatal("TryAcquire = false, want true")
	}
}

func mustNotAcquire(t *testing.T, l lockimpl.Lock) {
	t.Helper()
	ok, err := l.TryAcquire(t.Context())
	if err != nil {
		t.Fatalf("TryAcquire: %v", err)
	}
	if ok {
		t.Fatal("TryAcquire = true, want false: two holders at once")
	}
}

func mustRelease(t *testing.T, l lockimpl.Lock) {
	t.Helper()
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release: %v", err)
	}
}

// holderOf is whose token the lock key holds on m: the string value, or the
// single field of a reentrant hash; "" when the key is absent.
func holderOf(t *testing.T, m *miniredis.Miniredis) string {
	t.Helper()
	switch typ := m.Type(testKey); typ {
	case "":
		return ""
	case "string":
		v, err := m.Get(testKey)
		if err != nil {
			t.Fatal(err)
		}
		return v
	case "hash":
		fields, err := m.HKeys(testKey)
		if err != nil {
			t.Fatal(err)
		}
		if len(fields) != 1 {
			t.Fatalf("lock hash has fields %v, want exactly one owner", fields)
		}
		return fields[0]
	default:
		t.Fatalf("lock key has type %q", typ)
		return ""
	}
}

// plantOther makes the lock key on m belong to another client, the way it
// looks after our lease expired and owner took it: a string holding owner's
// token, or for the reentrant lock a hash {owner: 1}.
func plantOther(t *testing.T, name string, m *miniredis.Miniredis, owner string) {
	t.Helper()
	m.Del(testKey)
	if name == "reentrant" {
		m.HSet(testKey, owner, "1")
	} else if err := m.Set(testKey, owner); err != nil {
		t.Fatal(err)
	}
	m.SetTTL(testKey, 20*time.Second)
}

func TestMutualExclusion(t *testing.T) {
	// The one job of a lock: while A holds it, B's attempt says no; after A
	// releases, B gets it.
	for _, info := range lockimpl.All() {
		t.Run(info.Name, func(t *testing.T) {
			cl := newCluster(t, info.Nodes)
			a := cl.handle(t, info.Name, "A")
			b := cl.handle(t, info.Name, "B")

			mustAcquire(t, a)
			if info.Name == "no-lock" || info.Name == "local-mutex" {
				// The baselines: between two processes they exclude
				// nobody, which is what their lessons show.
				mustAcquire(t, b)
				return
			}
			mustNotAcquire(t, b)
			mustNotAcquire(t, b) // a retry changes nothing
			mustRelease(t, a)
			mustAcquire(t, b)
			mustNotAcquire(t, a)
			mustRelease(t, b)
		})
	}
}

func TestReleaseLeavesOthersLockAlone(t *testing.T) {
	// A token in the value lets a holder whose lease expired (and whose lock
	// passed to B) see that the lock is no longer its own: Release reports
	// ErrNotHeld and must not delete B's lock (no 误删).
	for _, name := range tokenNames {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")
			mustAcquire(t, a)
			for _, m := range cl.servers {
				plantOther(t, name, m, "B#1")
			}

			if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
				t.Fatalf("Release of B's lock = %v, want ErrNotHeld", err)
			}
			for i, m := range cl.servers {
				if got := holderOf(t, m); got != "B#1" {
					t.Errorf("node %d: lock holder = %q after A's release, want B#1 untouched", i, got)
				}
				if got := m.TTL(testKey); got != 20*time.Second {
					t.Errorf("node %d: TTL = %v, want B's 20s untouched", i, got)
				}
				if name == "reentrant" {
					if got := m.HGet(testKey, "B#1"); got != "1" {
						t.Errorf("node %d: B's hold count = %q, want 1 untouched", i, got)
					}
				}
			}
		})
	}
}

func TestReleaseWhenNothingHeld(t *testing.T) {
	// A token lock that finds no key (the lease ran out) says so instead of
	// pretending it released something.
	for _, name := range tokenNames {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")

			if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
				t.Errorf("Release before any acquire = %v, want ErrNotHeld", err)
			}
			mustAcquire(t, a)
			for _, m := range cl.servers {
				m.FastForward(testTTL) // the lease runs out
			}
			if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
				t.Errorf("Release after the lease expired = %v, want ErrNotHeld", err)
			}
		})
	}
}

func TestReleaseDELRemovesWhateverIsThere(t *testing.T) {
	// A constant value cannot tell whose lock it is: DEL removes the lock B
	// took after A's lease ran out (误删别人的锁), and Release reports success.
	for _, name := range constNames {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			m := cl.servers[0]
			a := cl.handle(t, name, "A")
			mustAcquire(t, a)
			plantOther(t, name, m, "B#1")

			mustRelease(t, a)
			if m.Exists(testKey) {
				t.Fatalf("key still there (%q); DEL should have removed it whoever wrote it", holderOf(t, m))
			}
		})
	}
}

func TestConstantValue(t *testing.T) {
	// The naive locks store the constant 1 and never draw an owner token.
	for _, name := range constNames {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")
			mustAcquire(t, a)
			if got := holderOf(t, cl.servers[0]); got != "1" {
				t.Errorf("value = %q, want 1", got)
			}
			mustRelease(t, a)
			if n := a.tokens.Drawn(); n != 0 {
				t.Errorf("drew %d tokens, want 0", n)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	// The value is the token Env.Token returned: drawn on the first attempt,
	// kept across failed attempts (so a lock set by a lost reply is still
	// recognised as ours), and replaced by a new one after release (so an old
	// hold can never be mistaken for the new one).
	for _, name := range tokenNames {
		t.Run(name, func(t *testing.T) {
			cl := clusterFor(t, name)
			a := cl.handle(t, name, "A")
			b := cl.handle(t, name, "B")

			mustAcquire(t, a)
			assertHolder(t, cl, "A#1")

			mustNotAcquire(t, b)
			mustNotAcquire(t, b)
			if n := b.tokens.Drawn(); n != 1 {
				t.Errorf("B drew %d tokens over two failed attempts, want 1", n)
			}

			mustRelease(t, a)
			assertHolder(t, cl, "")
			mustAcquire(t, b)
			assertHolder(t, cl, "B#1")
			mustRelease(t, b)

			mustAcquire(t, a)
			assertHolder(t, cl, "A#2")
			mustRelease(t, a)
			if n := a.tokens.Drawn(); n != 2 {
				t.Errorf("A drew %d tokens over two holds, want 2", n)
			}
		})
	}
}

func assertHolder(t *testing.T, cl *cluster, want string) {
	t.Helper()
	for i, m := range cl.servers {
		if got := holderOf(t, m); got != want {
			t.Errorf("node %d: holder = %q, want %q", i, got, want)
		}
	}
}

func TestTTL(t *testing.T) {
	// The lease each implementation puts on the key: SET ... EX 30 (or PX
	// 30000) leaves TTL 30s; bare SETNX leaves none, so a crashed holder's
	// lock never expires.
	tests := []struct {
		name string
		want time.Duration
	}{
		{"setnx", 0},
		{"setnx-expire", testTTL},
		{"set-nx-ex", testTTL},
		{"uuid-get-del", testTTL},
		{"uuid-lua", testTTL},
		{"uuid-lua-watchdog", testTTL},
		{"redlock", testTTL},
		{"fenced", testTTL},
		{"reentrant", testTTL},
		{"reentrant-local", testTTL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := clusterFor(t, tt.name)
			a := cl.handle(t, tt.name, "A")
			mustAcquire(t, a)
			for i, m := range cl.servers {
				if got := m.TTL(testKey); got != tt.want {
					t.Errorf("node %d: TTL = %v, want %v", i, got, tt.want)
				}
			}
			mustRelease(t, a)
		})
	}
}

func TestCrashedHolderLeaseExpires(t *testing.T) {
	// With a lease, a holder that dies without releasing blocks others only
	// until the TTL runs out; without one (setnx) it blocks them forever.
	tests := []struct {
		name         string
		freeAfterTTL bool
	}{
		{"setnx", false},
		{"setnx-expire", true},
		{"set-nx-ex", true},
		{"uuid-get-del", true},
		{"uuid-lua", true},
		{"redlock", true},
		{"reentrant", true},
		{"reentrant-local", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := clusterFor(t, tt.name)
			a := cl.handle(t, tt.name, "A")
			b := cl.handle(t, tt.name, "B")
			mustAcquire(t, a) // ... and A crashes: no Release.

			for _, m := range cl.servers {
				m.FastForward(testTTL - time.Millisecond)
			}
			mustNotAcquire(t, b)
			for _, m := range cl.servers {
				m.FastForward(24 * time.Hour)
			}
			if tt.freeAfterTTL {
				mustAcquire(t, b)
			} else {
				mustNotAcquire(t, b)
			}
		})
	}
}

// cmdHook is a go-redis hook that sees every command a client sends.
type cmdHook struct {
	// before runs before the command is sent; a non-nil error is returned
	// instead of sending it.
	before func(cmd redis.Cmder) error
	// after runs after the reply arrived.
	after func(cmd redis.Cmder)
}

func (h cmdHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h cmdHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.before != nil {
			if err := h.before(cmd); err != nil {
				cmd.SetErr(err)
				return err
			}
		}
		err := next(ctx, cmd)
		if h.after != nil {
			h.after(cmd)
		}
		return err
	}
}

func (h cmdHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// scriptName is the name on a script's first line ("-- renew: ..." gives
// "renew"), or "" when cmd is not an EVAL.
func scriptName(cmd redis.Cmder) string {
	args := cmd.Args()
	if cmd.Name() != "eval" || len(args) < 2 {
		return ""
	}
	src, _ := args[1].(string)
	var name string
	if _, err := fmt.Sscanf(src, "-- %s", &name); err != nil {
		return ""
	}
	return name[:len(name)-1] // drop the colon
}

func TestScriptNameHelper(t *testing.T) {
	// The watchdog tests count renewals by script name; make sure the helper
	// actually recognises the scripts the locks send.
	cl := newCluster(t, 1)
	a := cl.handle(t, "reentrant", "A")
	var seen []string
	a.env.Nodes[0].AddHook(cmdHook{after: func(cmd redis.Cmder) {
		if n := scriptName(cmd); n != "" {
			seen = append(seen, n)
		}
	}})
	mustAcquire(t, a)
	mustRelease(t, a)
	if want := []string{"reentrant-acquire", "reentrant-release"}; !slices.Equal(seen, want) {
		t.Fatalf("scripts seen = %v, want %v", seen, want)
	}
}
