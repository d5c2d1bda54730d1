// Package prestack grows a new goroutine's stack to its working size at
// once. A goroutine starts with a stack of 2 KiB, and lock code's calls
// through go-redis, the gate and the scheduler go some kilobytes deeper:
// the runtime grows a stack by doubling, copying it each time, and a
// simulated world's goroutines live for one run, so every world paid for
// the growth again (a tenth of a Redlock search's CPU). Grow, called first
// thing in a goroutine the engine starts, makes one growth of a stack that
// is still nearly empty.
package prestack

// frameSize is the frame Grow asks for: the runtime doubles the stack
// until it fits, to 16 KiB, which the runtime's per-core caches serve (a
// frame of 16 KiB, for a stack of 32, made searches no faster: such stacks
// come from the heap).
const frameSize = 8 << 10

// at is where Grow reads its frame: a variable, so that the compiler keeps
// the frame whole. Nothing writes it, so goroutines growing at once share
// it without a race.
var at int

// Grow grows the calling goroutine's stack to at least 16 KiB.
//
//go:noinline
func Grow() {
	var frame [frameSize]byte
	read(&frame)
}

// read reads one byte of frame, which keeps the frame on Grow's stack (the
// pointer does not escape) and in it (a call the compiler cannot see
// through reads it).
//
//go:noinline
func read(frame *[frameSize]byte) byte {
	return frame[at]
}
