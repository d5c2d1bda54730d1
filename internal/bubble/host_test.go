package bubble

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// host.go leans on testing.MainStart and the shape of its dependencies
// interface, which the Go 1 promise does not cover. This test builds a
// program that is not a test and hosts bubbles in it: when a new Go changes
// either, it fails here (or host.go's build constraint stops the build),
// and host.go is to be checked against the new testing package — the
// testDeps interface and M.Run in testing.go — and its constraint widened.
// The program's own arguments reach it untouched, and nothing of the
// testing package's is printed.
func TestHostOutsideGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "hostmain")
	build := exec.Command("go", "build", "-o", bin, "./testdata/hostmain")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-test.v", "extra").CombinedOutput()
	if err != nil {
		t.Fatalf("hostmain: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "1h0m0s 1h0m0s [-test.v extra]"; got != want {
		t.Errorf("hostmain printed %q, want %q", got, want)
	}
}
