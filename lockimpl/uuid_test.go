package lockimpl_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

func TestUUIDGetDelRaceBetweenGetAndDel(t *testing.T) {
	// GET, compare, DEL is not atomic: if A's lease runs out right after its
	// GET and B takes the lock, A's DEL removes B's lock (误删) and Release
	// even reports success.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "uuid-get-del", "A")
	b := cl.handle(t, "uuid-get-del", "B")
	mustAcquire(t, a)
	bTook := false
	a.env.Nodes[0].AddHook(cmdHook{after: func(cmd redis.Cmder) {
		if cmd.Name() == "get" {
			m.FastForward(testTTL) // A's lease runs out here...
			mustAcquire(t, b)      // ... and B takes the lock
			bTook = true
		}
	}})

	mustRelease(t, a)
	if !bTook {
		t.Fatal("Release sent no GET: the GET-compare-DEL sequence is gone")
	}
	if m.Exists(testKey) {
		t.Fatalf("B's lock survived (holder %q); expected the GET+DEL race to delete it", holderOf(t, m))
	}
}

func TestUUIDLuaAtomicRelease(t *testing.T) {
	// The same interleaving cannot happen with the Lua release: compare and
	// delete are one command. Once B holds the lock, A's Release finds B's
	// token and leaves it.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "uuid-lua", "A")
	b := cl.handle(t, "uuid-lua", "B")
	mustAcquire(t, a)
	m.FastForward(testTTL)
	mustAcquire(t, b)

	var sent []string
	a.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		sent = append(sent, cmd.Name())
		return nil
	}})
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("Release = %v, want ErrNotHeld", err)
	}
	if got := holderOf(t, m); got != "B#1" {
		t.Fatalf("holder = %q, want B#1", got)
	}
	if len(sent) != 1 || sent[0] != "eval" {
		t.Errorf("release sent %v, want a single EVAL", sent)
	}
	mustRelease(t, b)
}
