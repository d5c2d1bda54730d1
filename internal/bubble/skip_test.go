package bubble

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A test binary run with -test.skip still hosts bubbles: before, the host
// matched the skip pattern too, was skipped, and every bubble waited for it
// until the binary's timeout. testing asks of each part of a pattern alone
// (split at "|" and "/"), and a part matched the host where the whole did
// not: go test -skip 'TestReal|Browser' ./... hung.
func TestHostUnderSkip(t *testing.T) {
	if os.Getenv("LOCKSTEP_BUBBLE_SKIP_CHILD") == "1" {
		t.Skip("the child's own run")
	}
	for _, skip := range []string{"^TestReal", "TestReal|Browser", "Lockstep", "Host|Bubble", "Nothing/Host", ".*/x"} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSleepIsVirtual$", "-test.skip", skip, "-test.timeout", "20s", "-test.count", "1", "-test.v")
		cmd.Env = append(os.Environ(), "LOCKSTEP_BUBBLE_SKIP_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("a bubble under -test.skip %q: %v\n%s", skip, err, out)
		} else if !strings.Contains(string(out), "--- PASS: TestSleepIsVirtual") {
			t.Errorf("-test.skip %q: TestSleepIsVirtual did not pass:\n%s", skip, out)
		}
	}
}
