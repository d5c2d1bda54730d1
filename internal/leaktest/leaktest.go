// Package leaktest is the goroutine-leak check of the packages whose tests
// talk to servers through go-redis: goleak's, after go-redis's dial probes
// have had their time to end.
package leaktest

import (
	"bytes"
	"runtime/pprof"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// VerifyTestMain runs the tests and fails them if a goroutine outlives them.
// The bubble host (internal/bubble) and the goroutine that does the agents'
// I/O outside the bubbles (lockimpl/external) live as long as the process:
// they do not count.
func VerifyTestMain(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(dialProbesEnd{m}, append(opts, BubbleHost, Outside)...)
}

// BubbleHost has goleak ignore the bubble host's goroutine.
var BubbleHost = goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/internal/bubble.serve")

// Outside has goleak ignore the goroutine of package external that starts
// the agents' I/O outside every bubble.
var Outside = goleak.IgnoreTopFunction("github.com/lockstep-sim/lockstep/lockimpl/external.serveOutside")

// dialProbesEnd runs the tests, then waits up to two seconds for go-redis's
// dial probes to end. After a failed dial a pool probes the server every
// second in a goroutine of its own (pool.(*ConnPool).tryDial), which sees
// that its client was closed only when it wakes: up to a second after
// Close, longer than goleak waits. The probe of a client never closed is
// still there after that, and goleak reports it.
type dialProbesEnd struct{ m *testing.M }

func (p dialProbesEnd) Run() int {
	code := p.m.Run()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		if !bytes.Contains(buf.Bytes(), []byte("(*ConnPool).tryDial")) {
			break
		}
	}
	return code
}
