package lockimpl_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// waitHandle is a uuid-lua-wait handle configured for one replica, whose
// WAIT replies are acks: miniredis has no replicas and always answers 0, so
// a hook stands in for the replica's acknowledgement. It records the
// commands sent.
func waitHandle(t *testing.T, cl *cluster, prefix string, acks int64, sent *[]string) *handle {
	t.Helper()
	h := cl.handle(t, "uuid-lua-wait", prefix)
	h.env.Replicas = 1
	h.env.Nodes[0].AddHook(cmdHook{after: func(cmd redis.Cmder) {
		*sent = append(*sent, cmd.Name())
		if cmd.Name() == "wait" {
			cmd.(*redis.IntCmd).SetVal(acks)
		}
	}})
	h.Lock = lockimpl.NewUUIDLuaWait(h.env)
	return h
}

func TestWaitHoldsOnlyWithAnAck(t *testing.T) {
	ctx := context.Background()
	cl := newCluster(t, 1)
	m := cl.servers[0]

	// No acknowledgement: the lock is given back and the attempt fails.
	var sent []string
	a := waitHandle(t, cl, "A", 0, &sent)
	if ok, err := a.TryAcquire(ctx); ok || err != nil {
		t.Fatalf("acquire without an ack = %v, %v; want false, nil", ok, err)
	}
	if m.Exists(testKey) {
		t.Fatal("the lock stayed although no replica acknowledged it")
	}
	if want := []string{"set", "wait", "eval"}; !equalPrefix(sent, want) {
		t.Errorf("commands = %v, want SET, WAIT, then the compare-and-delete", sent)
	}

	// One acknowledgement: held, and the WAIT asked for one replica with a
	// tenth of the TTL.
	var sentB []string
	b := waitHandle(t, cl, "B", 1, &sentB)
	var waitArgs []any
	b.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		if cmd.Name() == "wait" {
			waitArgs = cmd.Args()
		}
		return nil
	}})
	mustAcquire(t, b)
	if got, _ := m.Get(testKey); got != "B#1" {
		t.Fatalf("lock = %q, want B#1", got)
	}
	if len(waitArgs) != 3 || waitArgs[1] != 1 || waitArgs[2] != int(lockimpl.WaitTimeout(testTTL).Milliseconds()) {
		t.Errorf("WAIT args = %v, want wait 1 %d", waitArgs, lockimpl.WaitTimeout(testTTL).Milliseconds())
	}
	mustRelease(t, b)
	if m.Exists(testKey) {
		t.Fatal("release left the lock")
	}
}

func TestWaitWithoutReplicasIsUUIDLua(t *testing.T) {
	// Replicas 0: nothing to wait for, no WAIT sent.
	cl := newCluster(t, 1)
	var sent []string
	a := cl.handle(t, "uuid-lua-wait", "A")
	a.env.Nodes[0].AddHook(cmdHook{after: func(cmd redis.Cmder) { sent = append(sent, cmd.Name()) }})
	mustAcquire(t, a)
	for _, c := range sent {
		if c == "wait" {
			t.Fatalf("WAIT sent with no replicas configured: %v", sent)
		}
	}
	mustRelease(t, a)
}

// equalPrefix says whether got starts with want, ignoring commands go-redis
// sends on its own (the handshake).
func equalPrefix(got, want []string) bool {
	var cmds []string
	for _, c := range got {
		if c != "hello" && c != "client" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < len(want) {
		return false
	}
	for i := range want {
		if cmds[i] != want[i] {
			return false
		}
	}
	return true
}
