package bubble

import (
	"os"
	"os/exec"
	"testing"
)

// A test binary run with -test.skip still hosts bubbles: before, the host
// matched the skip pattern too, was skipped, and every bubble waited for it
// until the binary's timeout.
func TestHostUnderSkip(t *testing.T) {
	if os.Getenv("LOCKSTEP_BUBBLE_SKIP_CHILD") == "1" {
		t.Skip("the child's own run")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSleepIsVirtual$", "-test.skip", "^TestReal", "-test.timeout", "60s", "-test.count", "1")
	cmd.Env = append(os.Environ(), "LOCKSTEP_BUBBLE_SKIP_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a bubble under -test.skip: %v\n%s", err, out)
	}
}
