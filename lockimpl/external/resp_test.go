package external

import (
	"regexp"
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/clients"
)

// The door answers exactly the handshake's commands, and the Python agent
// leaves out of its count exactly those: a command on one list and not the
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
	src, err := clients.Files.ReadFile("python/lockstep_agent.py")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^HANDSHAKE = \{(.*)\}$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("lockstep_agent.py has no HANDSHAKE = {…} line")
	}
	var py []string
	for _, n := range regexp.MustCompile(`b"([A-Z]+)"`).FindAllSubmatch(m[1], -1) {
		py = append(py, string(n[1]))
	}
	if !slices.Equal(py, Handshake) {
		t.Errorf("the Python agent's HANDSHAKE is %v, the door's %v", py, Handshake)
	}
}
