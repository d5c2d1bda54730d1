package prestack

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// Grow's frame is there: with stacks capped below it, a goroutine that
// calls Grow dies of its stack (in a child process: the runtime's stack
// overflow is fatal). A compiler that left the frame out would leave every
// world's goroutines to grow their stacks again.
func TestGrowGrowsTheStack(t *testing.T) {
	if os.Getenv("LOCKSTEP_PRESTACK_CHILD") == "1" {
		debug.SetMaxStack(frameSize / 2)
		done := make(chan struct{})
		go func() {
			Grow()
			close(done)
		}()
		<-done
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestGrowGrowsTheStack$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "LOCKSTEP_PRESTACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "stack exceeds") || !strings.Contains(string(out), "prestack.Grow") {
		t.Fatalf("a goroutine's Grow under a stack limit of %d bytes: %v\n%s", frameSize/2, err, out)
	}
}

// Goroutines grow their stacks at once, as a world's actors start: under
// the race detector (CI's go test -race) this fails if Grow writes
// anything they share.
func TestGrowAtOnce(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(Grow)
	}
	wg.Wait()
}

// A goroutine that goes some kilobytes deep, as lock code through
// go-redis does, with its stack grown first and without.
func BenchmarkDeepGoroutine(b *testing.B) {
	for _, grow := range []bool{false, true} {
		name := "plain"
		if grow {
			name = "grown"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				done := make(chan struct{})
				go func() {
					if grow {
						Grow()
					}
					deep(60)
					close(done)
				}()
				<-done
			}
		})
	}
}

//go:noinline
func deep(n int) byte {
	var frame [100]byte
	frame[n%100] = byte(n)
	if n == 0 {
		return frame[0]
	}
	return deep(n-1) + frame[(n+1)%100]
}
