package engine

import (
	"reflect"
	"runtime"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// Lock code may start goroutines of its own, without Env.Go: a library that
// asks its Redis nodes at once (redsync sends to each node from a goroutine
// of its own and waits for the answers), a watchdog on a go statement. The
// engine cannot see such a goroutine start or end, only its commands: the
// gate tells them from an actor's own by the function at the bottom of the
// stack, and the bubble says when they have all stopped (bubbled.go).

var (
	runActorEntry = reflect.ValueOf((*ActorSide).runActor).Pointer()
	fanCallEntry  = reflect.ValueOf((*ActorSide).fanCall).Pointer()
)

// goroutineRoot says which goroutine calls it, from the program counters of
// its stack (runtime.Callers, without symbols: the gate asks for every
// command).
func goroutineRoot() model.RootKind {
	var buf [128]uintptr
	pcs := buf[:]
	n := runtime.Callers(2, pcs)
	for n == len(pcs) && n < 1<<20 {
		// A deep stack: its bottom is further down.
		pcs = make([]uintptr, 8*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	for i := n - 1; i >= 0; i-- {
		f := runtime.FuncForPC(pcs[i] - 1)
		if f == nil {
			continue
		}
		switch f.Entry() {
		case runActorEntry:
			return model.RootActor
		case fanCallEntry:
			return model.RootFan
		}
	}
	return model.RootOther
}
