package external

import (
	"net"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/clients"
	"github.com/redis/go-redis/v9"
)

// The door answers exactly the handshake's commands, and the agents leave
// out of their counts exactly those: a command on one list and not the
// other would leave the run waiting for a command that never comes, or
// take a handshake for a move.
func TestHandshakeIsOneList(t *testing.T) {
	for _, name := range Handshake {
		if _, _, ok := handshake([]string{name}, false); !ok {
			t.Errorf("the door does not answer %s, which Handshake lists", name)
		}
	}
	for _, name := range []string{"SET", "GET", "DEL", "EVALSHA", "SCRIPT", "EVAL", "PEXPIRE", "MULTI"} {
		if _, _, ok := handshake([]string{name}, false); ok {
			t.Errorf("the door answers %s itself: it is the lock's", name)
		}
	}
	for _, agent := range []struct{ file, line, name string }{
		{"python/lockstep_agent.py", `(?m)^HANDSHAKE = \{(.*)\}$`, `b"([A-Z]+)"`},
		{"node/lockstep_agent.js", `(?m)^const HANDSHAKE = new Set\(\[(.*)\]\);$`, `'([A-Z]+)'`},
	} {
		src, err := clients.Files.ReadFile(agent.file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(agent.line).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s has no HANDSHAKE line", agent.file)
		}
		var names []string
		for _, n := range regexp.MustCompile(agent.name).FindAllSubmatch(m[1], -1) {
			names = append(names, string(n[1]))
		}
		if !slices.Equal(names, Handshake) {
			t.Errorf("%s's HANDSHAKE is %v, the door's %v", agent.file, names, Handshake)
		}
	}
}

// Two doors listen on loopback addresses of their own: a port one closes
// while its node is lost cannot be taken by the other, whose lock a
// reconnecting client of the first would then reach.
func TestDoorsListenApart(t *testing.T) {
	a, err := openDoor(1)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	b, err := openDoor(1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	ha, _, _ := net.SplitHostPort(a.ports()[0])
	hb, _, _ := net.SplitHostPort(b.ports()[0])
	if ha == "127.0.0.1" && hb == "127.0.0.1" && runtime.GOOS != "linux" {
		t.Skip("this system's loopback has 127.0.0.1 alone")
	}
	if ha == hb {
		t.Errorf("two doors listen on %s both", ha)
	}
}

// Replies go back in the protocol the connection asked for: a null is
// RESP2's "$-1" or RESP3's "_", inside an array too; HELLO 3 answers with
// a map and switches the connection.
func TestRepliesInTheConnectionsProtocol(t *testing.T) {
	for _, c := range []struct {
		res          any
		err          error
		resp2, resp3 string
	}{
		{nil, redis.Nil, "$-1\r\n", "_\r\n"},
		{"OK", nil, "+OK\r\n", "+OK\r\n"},
		{"A#1", nil, "$3\r\nA#1\r\n", "$3\r\nA#1\r\n"},
		{int64(2), nil, ":2\r\n", ":2\r\n"},
		{[]any{"a", nil}, nil, "*2\r\n$1\r\na\r\n$-1\r\n", "*2\r\n$1\r\na\r\n_\r\n"},
		{map[any]any{"k": int64(1)}, nil, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{true, nil, ":1\r\n", "#t\r\n"},
	} {
		if got := encode(c.res, c.err, false); got != c.resp2 {
			t.Errorf("%#v in RESP2 is %q, want %q", c.res, got, c.resp2)
		}
		if got := encode(c.res, c.err, true); got != c.resp3 {
			t.Errorf("%#v in RESP3 is %q, want %q", c.res, got, c.resp3)
		}
	}
	reply, resp3, ok := handshake([]string{"HELLO", "3", "SETNAME", "x"}, false)
	if !ok || !resp3 || !strings.HasPrefix(reply, "%5\r\n") || !strings.Contains(reply, "$5\r\nproto\r\n:3\r\n") {
		t.Errorf("HELLO 3 answers %q (RESP3 after it: %v)", reply, resp3)
	}
	if _, resp3, _ := handshake([]string{"HELLO", "2"}, true); resp3 {
		t.Error("HELLO 2 leaves the connection in RESP3")
	}
	if reply, _, _ := handshake([]string{"HELLO", "4"}, false); !strings.HasPrefix(reply, "-NOPROTO") {
		t.Errorf("HELLO 4 answers %q", reply)
	}
}
