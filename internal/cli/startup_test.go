package cli

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/race"
)

// A start that needs no lesson does not parse the catalogue: --version,
// the overview help and a completion of a flag's fixed words each allocate
// well under what parsing the built-in lessons takes (about 3 MB). The
// figure is the process's own (runtime.MemStats.TotalAlloc, see TestMain),
// so it counts what the command did, whatever else the test binary holds.
// Under the race detector, which makes more allocations (sync.Pool keeps
// less), --help took 1,042,816 bytes and a completion 1,053,888: the bound
// is twice as high there, still under what the lessons take.
func TestStartWithoutLessons(t *testing.T) {
	limit := 1 << 20
	if race.Enabled {
		limit *= 2
	}
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
		t.Logf("lockstep %s: %d bytes", strings.Join(args, " "), n)
		if n > limit {
			t.Errorf("lockstep %s allocated %d bytes, more than %d: did it parse the lessons?", strings.Join(args, " "), n, limit)
		}
	}
}
