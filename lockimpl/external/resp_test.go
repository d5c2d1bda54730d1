package external

import (
	"net"
	"regexp"
	"runtime"
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/clients"
)

// The door answers exactly the handshake's commands, and the agents leave
// out of their counts exactly those: a command on one list and not the
// other would leave the run waiting for a command that never comes, or
// take a handshake for a move.
func TestHandshakeIsOneList(t *testing.T) {
	for _, name := range Handshake {
		if _, ok := handshake([]string{name}); !ok {
			t.Errorf("the door does not answer %s, which Handshake lists", name)
		}
	}
	for _, name := range []string{"SET", "GET", "DEL", "EVALSHA", "SCRIPT", "EVAL", "PEXPIRE", "MULTI"} {
		if _, ok := handshake([]string{name}); ok {
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
