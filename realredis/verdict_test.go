package realredis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2/server"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// refusing is a server that passes the setup checks (PING, INFO, EVAL, an
// empty SCAN, keys that are not there) and answers every lock command with reply: one that looks like
// Redis to lockstep but serves the run nothing.
func refusing(t *testing.T, reply string) string {
	t.Helper()
	srv, err := server.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	handlers := map[string]server.Cmd{
		"PING": func(c *server.Peer, _ string, _ []string) { c.WriteInline("PONG") },
		"INFO": func(c *server.Peer, _ string, _ []string) {
			c.WriteBulk("# Server\r\nredis_version:7.2.4\r\nrun_id:refusing\r\n")
		},
		"EVAL": func(c *server.Peer, _ string, _ []string) { c.WriteInt(1) },
		"SCAN": func(c *server.Peer, _ string, _ []string) {
			c.WriteLen(2)
			c.WriteBulk("0")
			c.WriteLen(0)
		},
		// The run reads the keys it named: none is there.
		"TYPE":     func(c *server.Peer, _ string, _ []string) { c.WriteInline("none") },
		"PTTL":     func(c *server.Peer, _ string, _ []string) { c.WriteInt(-2) },
		"HGETALL":  func(c *server.Peer, _ string, _ []string) { c.WriteLen(0) },
		"GETRANGE": func(c *server.Peer, _ string, _ []string) { c.WriteBulk("") },
	}
	for name, h := range handlers {
		if err := srv.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"SET", "SETNX", "GET", "DEL", "EXPIRE", "PEXPIRE", "EVALSHA"} {
		if err := srv.Register(name, func(c *server.Peer, _ string, _ []string) { c.WriteError(reply) }); err != nil {
			t.Fatal(err)
		}
	}
	return srv.Addr().String()
}

func runOn(t *testing.T, addr string) error {
	t.Helper()
	target, err := Connect(context.Background(), Config{Addrs: []string{addr}, Second: 5 * time.Millisecond, NoACL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	s, _ := scenarios.Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	_, err = s.RunOn(context.Background(), impl, target)
	return err
}

// A server that refuses the run's credentials mid-run (the password changed,
// or the lock clients did not send it) gives no verdict: the run is an error
// that names the server, the command and the reason.
func TestAuthErrorIsNotAVerdict(t *testing.T) {
	addr := refusing(t, "NOAUTH Authentication required.")
	err := runOn(t, addr)
	if err == nil {
		t.Fatal("the run gave a verdict")
	}
	for _, want := range []string{addr, "A's SET failed", "the server refused the credentials", "NOAUTH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A run in which every command failed is an error, never a verdict.
func TestEveryCommandFailedIsNotAVerdict(t *testing.T) {
	err := runOn(t, refusing(t, "ERR this server serves nothing"))
	if err == nil || !strings.Contains(err.Error(), "Redis commands failed, so it has no verdict; the first: A's SET on redis-1: ERR this server serves nothing") {
		t.Errorf("run on a server that fails every command: %v", err)
	}
}
