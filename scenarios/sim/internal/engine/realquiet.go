package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
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

// runningBlocked says whether the goroutine of every running actor waits
// in-process. An actor whose goroutine it cannot find counts as running.
func (s *Sched) runningBlocked() bool {
	states := model.GoroutineStates()
	for _, a := range s.Actors {
		if a.State != model.StateRunning {
			continue
		}
		id, ok := s.Goroutines.IDs.Load(a)
		if !ok || !model.WaitsInProcess(states[id.(string)]) {
			return false
		}
	}
	return true
}

// awaitLibReal is awaitLib on real servers: the wall clock runs on to the
// horizon for actor a, blocked in lock code, and what lock code sends
// meanwhile comes in at the time it comes (awaitLibReal reports true: the
// run goes on). Past the horizon it waits up to the stall bound for one
// more message, answered as the shutdown would (redis.ErrClosed): the
// lesson is over. Lock code that sends nothing by then is blocked for good.
func (s *Sched) awaitLibReal(a *model.Actor, horizon time.Duration) bool {
	r := s.W.Wall.Real
	if m, ok := s.receiveBy(r.WallAt(horizon)); ok {
		s.W.Wall.catchUp()
		s.W.handle(m)
		return true
	}
	if s.W.Err != nil {
		return false
	}
	if m, ok := s.receiveBy(time.Now().Add(s.Watch.Bound)); ok {
		model.Closed(m)
	} else if s.W.Err == nil {
		s.W.Stuck(a)
	}
	return false
}

// receiveBy waits on the wall clock until deadline for a message of lock
// code's.
func (s *Sched) receiveBy(deadline time.Time) (model.Msg, bool) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case m := <-s.Ch:
		return m, true
	case <-timer.C:
	case <-s.W.Wall.Real.Ctx.Done():
		s.W.Fail(s.W.Wall.Real.Ctx.Err())
	}
	return model.Msg{}, false
}
