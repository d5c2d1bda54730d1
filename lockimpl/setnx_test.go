package lockimpl_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestSetNXSendsSETNX(t *testing.T) {
	// setnx is the literal SETNX command with no expiry; the key has no TTL
	// however long we wait.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "setnx", "A")
	var sent []string
	a.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		switch cmd.Name() {
		case "hello", "client": // connection set-up, not the lock's
		default:
			sent = append(sent, cmd.Name())
		}
		return nil
	}})
	mustAcquire(t, a)
	mustRelease(t, a)
	if got := strings.Join(sent, " "); got != "setnx del" {
		t.Errorf("commands = %q, want \"setnx del\"", got)
	}
	mustAcquire(t, a)
	m.FastForward(365 * 24 * time.Hour)
	if !m.Exists(testKey) {
		t.Error("a SETNX lock expired by itself")
	}
}

func TestSetNXExpireCrashBetweenCommands(t *testing.T) {
	// SETNX+EXPIRE is two commands: a crash (or lost connection) between them
	// leaves a lock with no TTL, exactly as endless as bare SETNX.
	cl := newCluster(t, 1)
	m := cl.servers[0]
	a := cl.handle(t, "setnx-expire", "A")
	b := cl.handle(t, "setnx-expire", "B")
	crash := errors.New("connection lost before EXPIRE")
	a.env.Nodes[0].AddHook(cmdHook{before: func(cmd redis.Cmder) error {
		if cmd.Name() == "expire" {
			return crash
		}
		return nil
	}})

	ok, err := a.TryAcquire(t.Context())
	if !ok || !errors.Is(err, crash) {
		t.Fatalf("TryAcquire = %v, %v; want true (the key is ours) with the EXPIRE error", ok, err)
	}
	if got := m.TTL(testKey); got != 0 {
		t.Fatalf("TTL = %v, want none: EXPIRE never arrived", got)
	}
	m.FastForward(365 * 24 * time.Hour) // A is gone for good
	mustNotAcquire(t, b)
}
