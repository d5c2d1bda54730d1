package main

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them. With
// LOCKSTEP_TEST_MAIN=1 the test binary is lockstep itself, signals and all:
// tests run it as a process of its own (lockstepProcess).
func TestMain(m *testing.M) {
	if os.Getenv("LOCKSTEP_TEST_MAIN") == "1" {
		os.Exit(realMain(os.Args[1:]))
	}
	goleak.VerifyTestMain(dialProbesEnd{m})
}

// dialProbesEnd runs the tests, then waits up to two seconds for go-redis's
// dial probes to end. After a failed dial a pool probes the server every
// second in a goroutine of its own (pool.(*ConnPool).tryDial), which sees
// that its client was closed only when it wakes: up to a second after
// Close, longer than goleak waits. The probe of a client never closed is
// still there after that, and goleak reports it.
type dialProbesEnd struct{ m *testing.M }

func (p dialProbesEnd) Run() int {
	code := p.m.Run()
	buf := make([]byte, 1<<20)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("(*ConnPool).tryDial")) {
			break
		}
	}
	return code
}
