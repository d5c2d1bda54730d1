package engine

import (
	"sync/atomic"
)

// Every goroutine of an actor carries a profiler label that names its world
// and itself, and so do the goroutines its lock code starts (a go statement
// passes its labels on). When lock code is stuck for good, the goroutine
// profile — read once, on that error's path — finds the actor's goroutine
// by it and says where it waits.

var worldIDs atomic.Uint64
