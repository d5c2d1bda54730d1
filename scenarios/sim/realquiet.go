package sim

import (
	"runtime"
	"strings"
	"sync"
	"time"
)

// A real run is not a bubble: the Go runtime does not say when its lock
// code has nothing left to do. When the running actors send nothing, the
// goroutines' states in the traceback say it instead: an actor whose
// goroutine waits on a channel, a select, a sleep or a lock of the sync
// package waits for another goroutine of the process or a timer — a
// watchdog in its select on a ticker, a Release waiting for that watchdog
// while its renewal is at the gate — and is blocked in lock code, as a
// bubble would call it. One that runs, is runnable, or waits for the
// network or a system call is not.

// inProcessWaits are the traceback's states of a goroutine that waits
// in-process.
var inProcessWaits = []string{"chan receive", "chan send", "select", "sleep", "sync.", "semacquire"}

// waitsInProcess says whether a goroutine in traceback state st waits
// in-process.
func waitsInProcess(st string) bool {
	for _, p := range inProcessWaits {
		if strings.HasPrefix(st, p) {
			return true
		}
	}
	return false
}

// runningBlocked says whether the goroutine of every running actor waits
// in-process. An actor whose goroutine it cannot find counts as running.
func (s *sched) runningBlocked() bool {
	states := goroutineStates()
	for _, a := range s.actors {
		if a.state != stateRunning {
			continue
		}
		id, ok := s.goroutines.ids.Load(a)
		if !ok || !waitsInProcess(states[id.(string)]) {
			return false
		}
	}
	return true
}

// statesCache keeps the last traceback's states for statesFresh: real runs
// side by side (locktest runs every lesson at once) share one reading, as
// each stops the world.
var statesCache struct {
	sync.Mutex
	at     time.Time
	states map[string]string
}

const statesFresh = time.Millisecond

// sendFrame is actorSide.send's frame in a traceback.
const sendFrame = "lockstep/scenarios/sim.(*actorSide).send("

// goroutineStates maps each goroutine's id to its state in the traceback
// ("chan receive", "IO wait", "running" …).
func goroutineStates() map[string]string {
	statesCache.Lock()
	defer statesCache.Unlock()
	if time.Since(statesCache.at) < statesFresh {
		return statesCache.states
	}
	states := map[string]string{}
	for _, rec := range strings.Split(allStacks(), "\n\n") {
		head, _, _ := strings.Cut(rec, "\n")
		id, rest, ok := strings.Cut(strings.TrimPrefix(head, "goroutine "), " [")
		if !ok {
			continue
		}
		st, _, _ := strings.Cut(strings.TrimSuffix(rest, "]:"), ",")
		if strings.Contains(rec, sendFrame) {
			// On its way to the scheduler, which is not listening while
			// it reads this: not blocked in lock code.
			st = "sending"
		}
		states[id] = st
	}
	statesCache.at, statesCache.states = time.Now(), states
	return states
}

// allStacks is runtime.Stack's traceback of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// awaitLibReal is awaitLib on real servers: the wall clock runs on to the
// horizon for actor a, blocked in lock code, and what lock code sends
// meanwhile comes in at the time it comes (awaitLibReal reports true: the
// run goes on). Past the horizon it waits up to the stall bound for one
// more message, answered as the shutdown would (redis.ErrClosed): the
// lesson is over. Lock code that sends nothing by then is blocked for good.
func (s *sched) awaitLibReal(a *actor, horizon time.Duration) bool {
	r := s.w.wall.real
	if m, ok := s.receiveBy(r.WallAt(horizon)); ok {
		s.w.wall.catchUp()
		s.w.handle(m)
		return true
	}
	if s.w.err != nil {
		return false
	}
	if m, ok := s.receiveBy(time.Now().Add(s.watch.bound)); ok {
		closed(m)
	} else if s.w.err == nil {
		s.w.stuck(a)
	}
	return false
}

// receiveBy waits on the wall clock until deadline for a message of lock
// code's.
func (s *sched) receiveBy(deadline time.Time) (msg, bool) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case m := <-s.ch:
		return m, true
	case <-timer.C:
	case <-s.w.wall.real.Ctx.Done():
		s.w.fail(s.w.wall.real.Ctx.Err())
	}
	return msg{}, false
}
