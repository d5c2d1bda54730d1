package realredis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// fake is a tiny RESP server that answers PING and INFO like a Redis of the
// given version and knows EVAL only if lua is set: for the setup checks that
// a real server cannot easily fail on demand.
func fake(t *testing.T, version, runID string, lua bool) string {
	t.Helper()
	srv, err := server.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(srv.Register("PING", func(c *server.Peer, _ string, _ []string) { c.WriteInline("PONG") }))
	must(srv.Register("INFO", func(c *server.Peer, _ string, _ []string) {
		c.WriteBulk("# Server\r\nredis_version:" + version + "\r\nrun_id:" + runID + "\r\n")
	}))
	if lua {
		must(srv.Register("EVAL", func(c *server.Peer, _ string, _ []string) { c.WriteInt(1) }))
	}
	return srv.Addr().String()
}

func connectErr(t *testing.T, cfg Config) string {
	t.Helper()
	_, err := Connect(context.Background(), cfg)
	if err == nil {
		t.Fatal("Connect succeeded")
	}
	return err.Error()
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, addr, user, pass string
		db                   int
		bad                  bool
	}{
		{in: "127.0.0.1:6379", addr: "127.0.0.1:6379"},
		{in: "localhost:7000", addr: "localhost:7000"},
		{in: "redis://alice:s3cret@10.0.0.5:6380/2", addr: "10.0.0.5:6380", user: "alice", pass: "s3cret", db: 2},
		{in: "rediss://:pw@example.com:6390", addr: "example.com:6390", pass: "pw"},
		{in: "[::1]:6379", addr: "[::1]:6379"},
		{in: "unix:///var/run/redis.sock?db=3", addr: "/var/run/redis.sock", db: 3},
		{in: "unix://:pw@/var/run/redis.sock", addr: "/var/run/redis.sock", pass: "pw"},
		{in: "127.0.0.1:70000", bad: true},
		{in: "127.0.0.1:0", bad: true},
		{in: "6379", bad: true},
		{in: "host:port", bad: true},
		{in: ":6379", bad: true},
		{in: "redis://host:6379/notadb", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			o, err := Parse(tc.in)
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), tc.in) {
					t.Fatalf("Parse(%q) = %v, want an error naming it", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Addr != tc.addr || o.Username != tc.user || o.Password != tc.pass || o.DB != tc.db {
				t.Errorf("Parse(%q) = addr %q user %q pass %q db %d", tc.in, o.Addr, o.Username, o.Password, o.DB)
			}
		})
	}
}

// An address nobody listens on fails within the check timeout, and the error
// names it.
func TestUnreachable(t *testing.T) {
	start := time.Now()
	msg := connectErr(t, Config{Addrs: []string{"127.0.0.1:1"}})
	if !strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("error %q does not name the address", msg)
	}
	// Not a speed target: a connect that retried would go on for far
	// longer than the check's own bound.
	if d := time.Since(start); d > 3*checkTimeout {
		t.Errorf("took %s to report an unreachable server", d)
	}
}

func TestAuthentication(t *testing.T) {
	m := miniredis.RunT(t)
	m.RequireAuth("secret")
	if msg := connectErr(t, Config{Addrs: []string{m.Addr()}}); !strings.Contains(msg, "requires a password") {
		t.Errorf("no password: %q", msg)
	}
	if msg := connectErr(t, Config{Addrs: []string{"redis://:wrong@" + m.Addr()}}); !strings.Contains(msg, "authentication to "+m.Addr()+" failed") {
		t.Errorf("wrong password: %q", msg)
	}
}

func TestServerChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() Config
		want string
	}{
		{"no Lua", func() Config { return Config{Addrs: []string{fake(t, "7.2.4", "a", false)}} }, "does not run Lua scripts"},
		{"too old", func() Config { return Config{Addrs: []string{fake(t, "4.0.14", "a", true)}} }, `runs Redis "4.0.14"; lockstep needs 5.0 or later`},
		{"no version", func() Config { return Config{Addrs: []string{fake(t, "", "a", true)}} }, "lockstep needs 5.0 or later"},
		{"same server twice", func() Config {
			a := fake(t, "7.2.4", "same", true)
			return Config{Addrs: []string{a, a}, NoACL: true}
		}, "is the same server as"},
		{"replica not disposable", func() Config {
			return Config{Addrs: []string{fake(t, "7.2.4", "a", true)}, Replica: fake(t, "7.2.4", "b", true), NoACL: true}
		}, "pass --disposable"},
		{"replica is the primary", func() Config {
			return Config{Addrs: []string{fake(t, "7.2.4", "a", true)}, Replica: fake(t, "7.2.4", "a", true), Disposable: true, NoACL: true}
		}, "is the same server as"},
		{"too fast", func() Config { return Config{Addrs: []string{fake(t, "7.2.4", "a", true)}, Second: time.Millisecond} }, "too fast"},
		{"nothing", func() Config { return Config{} }, "no server given"},
		// Issue #26: without ACLs lockstep cannot make the run's user; it
		// says so, and how to go on without.
		{"no ACLs", func() Config { return Config{Addrs: []string{fake(t, "5.0.14", "a", true)}} }, "has no ACLs (Redis before 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := connectErr(t, tc.cfg()); !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestConnect(t *testing.T) {
	a, b := fake(t, "7.2.4", "a", true), fake(t, "6.0.0", "b", true)
	target, err := Connect(context.Background(), Config{Addrs: []string{a, b}, NoACL: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(target.Nodes) != 2 || target.Nodes[0].Addr != a || target.Second != DefaultSecond {
		t.Errorf("target = %+v", target)
	}
	if !strings.HasPrefix(target.Prefix, "lockstep:") || len(target.Prefix) != len("lockstep:12345678:") {
		t.Errorf("prefix %q", target.Prefix)
	}
	other, _ := Connect(context.Background(), Config{Addrs: []string{a}, NoACL: true})
	if other.Prefix == target.Prefix {
		t.Error("two runs share a prefix")
	}
}
