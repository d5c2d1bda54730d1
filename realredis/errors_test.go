package realredis

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// redisErr is an error reply from a server, as go-redis gives one.
type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}

// A refused setup check is classified by go-redis's own error classes and
// the reply's prefix, not by words anywhere in the message (issue #15).
func TestSetupError(t *testing.T) {
	opts := &redis.Options{Addr: "10.0.0.5:6380", DB: 99}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{redisErr("NOAUTH Authentication required."), "10.0.0.5:6380 requires a password: give it as redis://[user]:password@10.0.0.5:6380"},
		{redisErr("WRONGPASS invalid username-password pair or user is disabled."), "authentication to 10.0.0.5:6380 failed: WRONGPASS"},
		{redisErr("ERR invalid password"), "authentication to 10.0.0.5:6380 failed: ERR invalid password"},
		{redisErr("ERR Client sent AUTH, but no password is set"), "authentication to 10.0.0.5:6380 failed"},
		{redisErr("NOPERM this user has no permissions to run the 'ping' command"), "the user given for 10.0.0.5:6380 may not run lockstep's checks"},
		{redisErr("ERR DB index is out of range"), "10.0.0.5:6380 has no database 99: ERR DB index is out of range"},
		// Not an error reply: the words do not make it one.
		{errors.New("dial tcp: lookup invalid password: no such host"), "connect 10.0.0.5:6380: dial tcp: lookup invalid password"},
		{io.EOF, "connect 10.0.0.5:6380: EOF"},
	} {
		if got := setupError(tc.err, opts).Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("setupError(%q) = %q, want %q…", tc.err, got, tc.want)
		}
	}
}

// On a real server: a database the server does not have is named as such
// (it was "connect …: ERR DB index is out of range"), a wrong password is
// an authentication failure, and an IPv6 address, bare or in a URL, is
// reached.
func TestRealSetupErrorsAndIPv6(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "pw", "--bind", "127.0.0.1", "::1")
	port := strconv.Itoa(srv.Port)
	if msg := connectErr(t, Config{Addrs: []string{"redis://:pw@" + srv.Addr() + "/99"}}); !strings.Contains(msg, srv.Addr()+" has no database 99") {
		t.Errorf("database 99: %q", msg)
	}
	if msg := connectErr(t, Config{Addrs: []string{"redis://:wrong@" + srv.Addr()}}); !strings.Contains(msg, "authentication to "+srv.Addr()+" failed: WRONGPASS") {
		t.Errorf("wrong password: %q", msg)
	}
	if msg := connectErr(t, Config{Addrs: []string{"[::1]:" + port}}); !strings.Contains(msg, "[::1]:"+port+" requires a password") {
		t.Errorf("IPv6, no password: %q", msg)
	}
	target, err := Connect(context.Background(), Config{Addrs: []string{"redis://:pw@[::1]:" + port + "/2"}})
	if err != nil {
		t.Fatalf("IPv6 in a URL: %v", err)
	}
	if got := target.Nodes[0]; got.Addr != "[::1]:"+port || got.DB != 2 {
		t.Errorf("IPv6 in a URL: addr %q db %d", got.Addr, got.DB)
	}
	target.Close()
}

// fakeInfo is a server that answers PING, EVAL and INFO with info.
func fakeInfo(t *testing.T, info string) string {
	t.Helper()
	srv, err := server.NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	for cmd, f := range map[string]server.Cmd{
		"PING": func(c *server.Peer, _ string, _ []string) { c.WriteInline("PONG") },
		"EVAL": func(c *server.Peer, _ string, _ []string) { c.WriteInt(1) },
		"INFO": func(c *server.Peer, _ string, _ []string) { c.WriteBulk(info) },
	} {
		if err := srv.Register(cmd, f); err != nil {
			t.Fatal(err)
		}
	}
	return srv.Addr().String()
}

// INFO is read with go-redis's InfoMap: the fields of the section asked
// for, whatever its header; a reply that is not Redis's is an error, not a
// panic.
func TestInfoFields(t *testing.T) {
	addr := fakeInfo(t, "# Server\r\nredis_version:7.2.4\r\nrun_id:abc123\r\nos:Linux 6.1 x86_64\r\n\r\n")
	c := redis.NewClient(checkOptions(&redis.Options{Addr: addr}))
	defer c.Close()
	fields, err := infoFields(context.Background(), c, "server")
	if err != nil {
		t.Fatal(err)
	}
	if fields["redis_version"] != "7.2.4" || fields["run_id"] != "abc123" || fields["os"] != "Linux 6.1 x86_64" {
		t.Errorf("fields = %v", fields)
	}
	id, err := Check(context.Background(), &redis.Options{Addr: addr})
	if err != nil || id != "abc123" {
		t.Errorf("Check = %q, %v; want the run id abc123", id, err)
	}

	headless := fakeInfo(t, "redis_version:7.2.4\r\nrun_id:abc123\r\n")
	if _, err := Check(context.Background(), &redis.Options{Addr: headless}); err == nil || !strings.Contains(err.Error(), "INFO on "+headless) {
		t.Errorf("INFO without a section header: %v", err)
	}
}

// The REPLICAOF a refusal suggests takes an IPv6 host without brackets
// (it said "REPLICAOF [ :1]:6379").
func TestReplicaOf(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:6390":     "REPLICAOF 127.0.0.1 6390",
		"[::1]:6379":         "REPLICAOF ::1 6379",
		"redis.example:6379": "REPLICAOF redis.example 6379",
	} {
		if got := replicaOf(addr); got != want {
			t.Errorf("replicaOf(%q) = %q, want %q", addr, got, want)
		}
	}
}
