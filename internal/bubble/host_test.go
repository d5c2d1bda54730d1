package bubble

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The canary for host.go: a program that is not a test hosts bubbles
// through testing.Init and testing.Main, on whatever Go builds it (CI runs
// it on the two supported releases). Three bubbles at once each sleep 10s
// and wait five ticks of a 1s ticker: 15s on each bubble's clock. The
// program's own flags and arguments reach it untouched, and nothing of the
// testing package's is printed (no "PASS", no "=== RUN").
func TestHostOutsideGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "hostmain")
	build := exec.Command("go", "build", "-o", bin, "./testdata/hostmain")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-name", "x", "--", "-test.v", "extra").CombinedOutput()
	if err != nil {
		t.Fatalf("hostmain: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "[15s 15s 15s] x [-test.v extra]"; got != want {
		t.Errorf("hostmain printed %q, want %q", got, want)
	}
}

// BenchmarkHostBubble is a bubble's cost in a binary: start one, sleep 10s
// and tick five times on its clock, close it.
func BenchmarkHostBubble(b *testing.B) {
	for b.Loop() {
		bb := New()
		bb.Do(func() {
			time.Sleep(10 * time.Second)
			tick := time.NewTicker(time.Second)
			for range 5 {
				<-tick.C
			}
			tick.Stop()
		})
		if err := bb.Close(time.Second); err != nil {
			b.Fatal(err)
		}
	}
}
