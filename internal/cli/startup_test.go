package cli

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A start that needs no lesson does not parse the catalogue: --version,
// the overview help and a completion of a flag's fixed words each allocate
// well under what parsing the built-in lessons takes (about 3 MB). The
// figure is the process's own (runtime.MemStats.TotalAlloc, see TestMain),
// so it counts what the command did, whatever else the test binary holds.
func TestStartWithoutLessons(t *testing.T) {
	const limit = 1 << 20
	for _, args := range [][]string{{"--version"}, {"--help"}, {"__complete", "play", "--lang", ""}} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "LOCKSTEP_TEST_MAIN=1", "LOCKSTEP_TEST_ALLOC=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("lockstep %s: %v", strings.Join(args, " "), err)
		}
		i := strings.LastIndex(string(out), "alloc=")
		n, err := strconv.Atoi(strings.TrimSpace(string(out[i+len("alloc="):])))
		if i < 0 || err != nil {
			t.Fatalf("lockstep %s printed no allocation figure:\n%s", strings.Join(args, " "), out)
		}
		if n > limit {
			t.Errorf("lockstep %s allocated %d bytes, more than %d: did it parse the lessons?", strings.Join(args, " "), n, limit)
		}
	}
}
