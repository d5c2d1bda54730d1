package realredis

import (
	"bufio"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// monitorLine is a line of MONITOR from addr, its arguments quoted as
// MONITOR quotes them.
func monitorLine(addr string, args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return fmt.Sprintf("1796276114.366816 [0 %s] %s", addr, strings.Join(q, " "))
}

// shown runs lines through a filter that starts with observers and
// returns what it shows, each as "RUN ADDR COMMAND".
func shown(t *testing.T, observers []string, lines []string) []string {
	t.Helper()
	f := NewMonitorFilter(observers)
	var out []string
	for _, raw := range lines {
		l, ok := ParseMonitorLine(raw)
		if !ok {
			t.Fatalf("not a line of MONITOR: %q", raw)
		}
		if run, ok := f.Lock(l); ok {
			out = append(out, run+" "+l.Addr+" "+strings.Join(l.Args, " "))
		}
	}
	return out
}

// An observer's address is lockstep's own until a new connection on it
// begins: a lock's client on a port an observer had shows (#37, item 10;
// the README's awk filter hid it for as long as it ran).
func TestMonitorFilterPortReuse(t *testing.T) {
	const a, b = "127.0.0.1:50312", "127.0.0.1:50314"
	got := shown(t, nil, []string{
		monitorLine(a, "hello", "3"),
		monitorLine(a, "client", "setname", "lockstep-observer"),
		monitorLine(a, "mget", "lockstep:0a1b2c3d:lock:product:1001"),
		monitorLine(a, "pttl", "lockstep:0a1b2c3d:lock:product:1001"),
		monitorLine(b, "hello", "2", "auth", "(redacted)", "(redacted)"),
		monitorLine(b, "set", "lockstep:0a1b2c3d:lock:product:1001", "A#1", "px", "900", "nx"),
		// The observer closed; client C's connection has its port.
		monitorLine(a, "hello", "2", "auth", "(redacted)", "(redacted)"),
		monitorLine(a, "set", "lockstep:0a1b2c3d:lock:product:1001", "C#1", "px", "900", "nx"),
		monitorLine(b, "mget", "lockstep:0a1b2c3d:lock:product:1001"), // a lock's, not an observer's: b never named itself
		// And an observer takes the port again.
		monitorLine(a, "hello", "3"),
		monitorLine(a, "client", "setname", "lockstep-observer"),
		monitorLine(a, "mget", "lockstep:0a1b2c3d:lock:product:1001"),
	})
	want := []string{
		"0a1b2c3d 127.0.0.1:50314 set lockstep:0a1b2c3d:lock:product:1001 A#1 px 900 nx",
		"0a1b2c3d 127.0.0.1:50312 set lockstep:0a1b2c3d:lock:product:1001 C#1 px 900 nx",
		"0a1b2c3d 127.0.0.1:50314 mget lockstep:0a1b2c3d:lock:product:1001",
	}
	if !slices.Equal(got, want) {
		t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The observers open when MONITOR began (CLIENT LIST) are lockstep's own
// from the first line; a connection that names itself otherwise, or
// lockstep-observer in its HELLO, is as it says.
func TestMonitorFilterNames(t *testing.T) {
	const a, b, c = "127.0.0.1:40001", "[::1]:40002", "127.0.0.1:40003"
	got := shown(t, []string{a, b}, []string{
		monitorLine(a, "mget", "lockstep:0a1b2c3d:k"),
		monitorLine(b, "pttl", "lockstep:0a1b2c3d:k"),
		monitorLine(b, "client", "setname", "mine"),
		monitorLine(b, "get", "lockstep:0a1b2c3d:k"),
		monitorLine(c, "hello", "3", "auth", "(redacted)", "(redacted)", "setname", "lockstep-observer"),
		monitorLine(c, "mget", "lockstep:0a1b2c3d:k"),
		monitorLine(a, "reset"),
		monitorLine(a, "get", "lockstep:0a1b2c3d:k"),
	})
	want := []string{"0a1b2c3d [::1]:40002 get lockstep:0a1b2c3d:k", "0a1b2c3d 127.0.0.1:40001 get lockstep:0a1b2c3d:k"}
	if !slices.Equal(got, want) {
		t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A script's commands ([0 lua]) show by their keys; every connection's
// handshake is left out, a lock's too; each line carries its run, a
// hash tag's and a keyless command of a lock's connection (WAIT) too;
// bench's keys, the replica's lease and other programs' keys are not a
// run's.
func TestMonitorFilterRuns(t *testing.T) {
	const lock, other, obs = "127.0.0.1:50000", "127.0.0.1:50002", "127.0.0.1:50004"
	script := "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('DEL', KEYS[1])\nend\nreturn 0"
	got := shown(t, []string{obs}, []string{
		monitorLine(lock, "hello", "2", "auth", "(redacted)", "(redacted)"),
		monitorLine(lock, "client", "setinfo", "lib-name", "go-redis"),
		monitorLine(lock, "select", "0"),
		monitorLine(lock, "auth", "(redacted)"),
		monitorLine(lock, "ping"),
		monitorLine(lock, "wait", "1", "100"), // before any key: whose?
		monitorLine(lock, "set", "lockstep:0a1b2c3d:lock:x", "A#1", "px", "900", "nx"),
		monitorLine(lock, "wait", "1", "100"),
		monitorLine(lock, "ping"),
		monitorLine(lock, "eval", script, "1", "lockstep:0a1b2c3d:lock:x", "A#1"),
		monitorLine("lua", "GET", "lockstep:0a1b2c3d:lock:x"),
		monitorLine("lua", "DEL", "lockstep:0a1b2c3d:lock:x"),
		monitorLine("lua", "TIME"),
		monitorLine(other, "incr", "{lockstep:9f8e7d6c:lock:x}:fence"),
		monitorLine(other, "set", "lockstep-bench:0a1b2c3d:k", "v"),
		monitorLine(other, "set", "lockstep:replica-lease:0123456789abcdef0123456789abcdef01234567", "v"),
		monitorLine(other, "get", "mine:lockstep:0a1b2c3d:k"),
		monitorLine(other, "set", "lockstep:0A1B2C3D:k", "v"),
		monitorLine(obs, "eval", script, "1", "lockstep:0a1b2c3d:lock:x", "A#1"),
		monitorLine("lua", "GET", "lockstep:0a1b2c3d:lock:x"),
	})
	want := []string{
		"0a1b2c3d 127.0.0.1:50000 set lockstep:0a1b2c3d:lock:x A#1 px 900 nx",
		"0a1b2c3d 127.0.0.1:50000 wait 1 100",
		"0a1b2c3d 127.0.0.1:50000 eval " + script + " 1 lockstep:0a1b2c3d:lock:x A#1",
		"0a1b2c3d lua GET lockstep:0a1b2c3d:lock:x",
		"0a1b2c3d lua DEL lockstep:0a1b2c3d:lock:x",
		"9f8e7d6c 127.0.0.1:50002 incr {lockstep:9f8e7d6c:lock:x}:fence",
		"0a1b2c3d lua GET lockstep:0a1b2c3d:lock:x",
	}
	if !slices.Equal(got, want) {
		t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// On a unix socket every client has one address: a line with a run's key
// shows whoever sent it, and nothing is remembered of the address.
func TestMonitorFilterUnixSocket(t *testing.T) {
	const sock = "unix:/tmp/redis dir/redis.sock"
	got := shown(t, nil, []string{
		monitorLine(sock, "hello", "3"),
		monitorLine(sock, "client", "setname", "lockstep-observer"),
		monitorLine(sock, "mget", "lockstep:0a1b2c3d:k"),
		monitorLine(sock, "set", "lockstep:0a1b2c3d:k", "A#1"),
		monitorLine(sock, "info", "replication"),
	})
	want := []string{"0a1b2c3d " + sock + " mget lockstep:0a1b2c3d:k", "0a1b2c3d " + sock + " set lockstep:0a1b2c3d:k A#1"}
	if !slices.Equal(got, want) {
		t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// MONITOR's quoting reads back as the bytes sent, and is written again
// the same way.
func TestParseMonitorLine(t *testing.T) {
	raw := `1796276114.366816 [3 unix:/tmp/a] b.sock] "SET" "k\"\\" "\x00\xff\n\r\t\a\b" "" "\x4"`
	l, ok := ParseMonitorLine(raw)
	if !ok {
		t.Fatal("not read")
	}
	if l.Addr != "unix:/tmp/a] b.sock" || l.Command() != "set" {
		t.Errorf("addr %q, command %q", l.Addr, l.Command())
	}
	want := []string{"SET", `k"\`, "\x00\xff\n\r\t\a\b", "", `\x4`}
	if !slices.Equal(l.Args, want) {
		t.Errorf("args %q, want %q", l.Args, want)
	}
	if got := quote("\x00\xff\n\r\t\a\b\"\\é"); got != `"\x00\xff\n\r\t\a\b\"\\\xc3\xa9"` {
		t.Errorf("quote: %s", got)
	}
	for _, bad := range []string{"OK", "", "1796276114.366816 [0 127.0.0.1:1]", `1796276114.366816 [0 127.0.0.1:1] get`} {
		if _, ok := ParseMonitorLine(bad); ok {
			t.Errorf("%q read as a line of MONITOR", bad)
		}
	}
	// A line cut short has the arguments before the cut.
	if l, ok := ParseMonitorLine(`1796276114.366816 [0 127.0.0.1:1] "set" "k" "vvvv … (9 more bytes left out)`); !ok || !slices.Equal(l.Args, []string{"set", "k"}) {
		t.Errorf("cut line: %q %v", l.Args, ok)
	}
}

// No password reaches the screen through --all, whether or not the server
// redacted it.
func TestMonitorLineRedacted(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"auth", "s3cret"}, []string{"auth", "(redacted)"}},
		{[]string{"AUTH", "alice", "s3cret"}, []string{"AUTH", "(redacted)", "(redacted)"}},
		{[]string{"hello", "3", "AUTH", "alice", "s3cret", "setname", "x"}, []string{"hello", "3", "AUTH", "(redacted)", "(redacted)", "setname", "x"}},
		{[]string{"migrate", "h", "6379", "", "0", "5000", "AUTH", "pw", "KEYS", "a"}, []string{"migrate", "h", "6379", "", "0", "5000", "AUTH", "(redacted)", "KEYS", "a"}},
		{[]string{"migrate", "h", "6379", "k", "0", "5000", "auth2", "u", "pw"}, []string{"migrate", "h", "6379", "k", "0", "5000", "auth2", "(redacted)", "(redacted)"}},
		{[]string{"set", "auth", "s3cret"}, []string{"set", "auth", "s3cret"}},
	} {
		l, _ := ParseMonitorLine(monitorLine("127.0.0.1:1", tc.in...))
		if got := l.Redacted(); got != monitorLine("127.0.0.1:1", tc.want...) {
			t.Errorf("%q: %s", tc.in, got)
		}
	}
	raw := `1796276114.391325 [0 127.0.0.1:58194] "hello" "2" "auth" "(redacted)" "(redacted)"`
	if l, _ := ParseMonitorLine(raw); l.Redacted() != raw {
		t.Errorf("a line Redis redacted is not as it came: %s", l.Redacted())
	}
}

// A line longer than the bound is cut there and says how much it left
// out; the next line is whole.
func TestReadLineBound(t *testing.T) {
	long := "+" + strings.Repeat("x", 10000)
	r := bufio.NewReaderSize(strings.NewReader(long+"\r\n+OK\r\n+12345678\r\n+12345678\r\n+123456789\r\n+1234567890\r\n"), 16)
	for _, tc := range []struct {
		max  int
		want string
	}{
		{100, "+" + strings.Repeat("x", 99) + " … (9901 more bytes left out)"},
		{100, "+OK"},
		{9, "+12345678"},  // the CRLF past the bound
		{10, "+12345678"}, // the CR at it
		{9, "+12345678 … (1 more byte left out)"},
		{9, "+12345678 … (2 more bytes left out)"},
	} {
		if got, err := readLine(r, tc.max); err != nil || got != tc.want {
			t.Fatalf("readLine(%d): %q, %v; want %q", tc.max, got, err, tc.want)
		}
	}
	if _, err := readLine(r, 100); err == nil {
		t.Error("no error at the end")
	}
}

// CLIENT LIST's lines name lockstep's own connections by their name.
func TestObservers(t *testing.T) {
	list := "id=3 addr=127.0.0.1:58134 laddr=127.0.0.1:6379 fd=8 name=lockstep-observer age=0 cmd=ping user=default\n" +
		"id=4 addr=127.0.0.1:58136 laddr=127.0.0.1:6379 fd=9 name= age=0 cmd=set user=lockstep-run-0123456789abcdef\n" +
		"id=5 addr=::1:58138 laddr=::1:6379 fd=10 name=lockstep-observer-not age=0 cmd=get\n" +
		"id=6 addr=::1:58140 laddr=::1:6379 fd=11 name=lockstep-observer age=0 cmd=mget\n"
	if got := observers(list); !slices.Equal(got, []string{"127.0.0.1:58134", "::1:58140"}) {
		t.Errorf("observers: %q", got)
	}
}
