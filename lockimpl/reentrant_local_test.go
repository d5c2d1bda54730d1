package lockimpl_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// sentCommands records what h's client sends: the command's name, or the
// script's name for an EVAL. The handshake of a new connection (HELLO,
// CLIENT SETINFO) is go-redis's, not the lock's, and is left out.
func sentCommands(h *handle) *[]string {
	var sent []string
	h.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		name := cmd.Name()
		if name == "hello" || name == "client" {
			return nil
		}
		if s := scriptName(cmd); s != "" {
			name = s
		}
		sent = append(sent, name)
		return nil
	}})
	return &sent
}

func TestReentrantLocalCountsInTheProcess(t *testing.T) {
	// The hold count lives in the lock object (线程本地变量维护计数器): the
	// first acquire is a SET NX, nested acquires and inner releases send
	// nothing, and only the last release runs the compare-and-delete script.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "reentrant-local", "A")
	b := cl.handle(t, "reentrant-local", "B")
	sent := sentCommands(a)
	expectSent := func(when string, want ...string) {
		t.Helper()
		if !slices.Equal(*sent, want) {
			t.Fatalf("%s: A sent %v, want %v", when, *sent, want)
		}
	}

	mustAcquire(t, a)
	expectSent("after the first acquire", "set")
	if got := holderOf(t, m); got != "A#1" {
		t.Fatalf("holder = %q, want A#1", got)
	}
	const depth = 3
	for range depth - 1 {
		mustAcquire(t, a)
	}
	expectSent("after the nested acquires", "set")
	mustNotAcquire(t, b)

	for range depth - 1 {
		mustRelease(t, a)
	}
	expectSent("after the inner releases", "set")
	if got := holderOf(t, m); got != "A#1" {
		t.Fatalf("holder after the inner releases = %q, want A#1 still", got)
	}
	mustNotAcquire(t, b)

	mustRelease(t, a)
	expectSent("after the last release", "set", "release")
	if m.Exists(testKey) {
		t.Fatal("key still there after the last release")
	}
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Errorf("one Release too many = %v, want ErrNotHeld", err)
	}
	expectSent("after one release too many", "set", "release")
	if n := a.tokens.Drawn(); n != 1 {
		t.Errorf("A drew %d tokens, want 1", n)
	}
	mustAcquire(t, b)
	mustRelease(t, b)
}

func TestReentrantLocalNestedAcquireTrustsTheCount(t *testing.T) {
	// The design's known weakness: a nested acquire does not ask Redis. After
	// the lease ran out and B took the lock, A's nested acquire still says
	// yes. The last release at least finds B's token and leaves B's lock
	// alone.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "reentrant-local", "A")
	b := cl.handle(t, "reentrant-local", "B")
	mustAcquire(t, a)
	m.FastForward(testTTL) // the lease runs out under A's hold
	mustAcquire(t, b)
	sent := sentCommands(a)

	mustAcquire(t, a) // nested: counted locally, while B holds the lock
	mustRelease(t, a)
	if len(*sent) != 0 {
		t.Fatalf("nested acquire and release sent %v, want nothing", *sent)
	}
	if err := a.Release(t.Context()); !errors.Is(err, lockimpl.ErrNotHeld) {
		t.Fatalf("A's last release of B's lock = %v, want ErrNotHeld", err)
	}
	if got := holderOf(t, m); got != "B#1" {
		t.Errorf("holder after A's release = %q, want B#1 untouched", got)
	}
	// The count is back at zero: A's next acquire asks Redis again.
	mustNotAcquire(t, a)
	if want := []string{"release", "set"}; !slices.Equal(*sent, want) {
		t.Errorf("A sent %v, want %v", *sent, want)
	}
}
