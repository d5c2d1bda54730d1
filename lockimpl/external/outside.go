package external

import (
	"runtime"
	"sync"
)

// A run on embedded servers is a testing/synctest bubble: the engine knows
// the run is quiet when every goroutine of it is durably blocked. A
// goroutine that reads a socket or a pipe is not, so one that waited there
// while the agent had nothing to say would keep the run from ever going
// quiet. The goroutines that do the agent's I/O (its reports, the Redis
// connections of its lock) therefore run outside every bubble, and hand
// what they read to the run on channels made outside too: a goroutine of
// the run that waits on such a channel is not durably blocked, so the run
// is not quiet while the agent works, and is once the agent has said it
// waits and the run's own goroutines wait on channels of the run.
//
// A channel made in a bubble may not be used outside it, and a goroutine
// started in one belongs to it: what must be outside is made, and started,
// by the goroutine init starts (inOutside).

var (
	outsideMu  sync.Mutex
	outsideReq = make(chan func())
	outsideAck = make(chan struct{})
)

func init() { go serveOutside() }

// serveOutside runs inOutside's functions, for as long as the process lives,
// on one thread: the agents it starts are killed when that thread ends
// (dieWithUs), which is then only with the process.
func serveOutside() {
	runtime.LockOSThread()
	for f := range outsideReq {
		f()
		outsideAck <- struct{}{}
	}
}

// inOutside runs f on a goroutine outside every bubble, and returns when f
// has: what f makes is made outside, what it starts runs outside.
func inOutside(f func()) {
	outsideMu.Lock()
	defer outsideMu.Unlock()
	outsideReq <- f
	<-outsideAck
}
