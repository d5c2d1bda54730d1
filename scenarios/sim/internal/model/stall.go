package model

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// StallWatch gives up a run that makes no progress for its bound of wall
// time, and says who ran last and where.
type StallWatch struct {
	Bound    time.Duration          // StallTimeout when the world was built
	Progress atomic.Uint64          // messages handled: a run that makes none stalls
	Last     atomic.Pointer[string] // who the scheduler last let go, for a stall
	LastA    atomic.Pointer[Actor]  // that actor; nil for the lock's New
	Wedged   error                  // set by the caller when the run stalled (see in)
	// WedgedDone: the stalled call's end; aborted tells the scheduler.
	WedgedDone <-chan any
	Aborted    atomic.Bool
	// Pacing counts the calls into the pacer under way: a live run waiting
	// for its presenter is not stalled (in).
	Pacing atomic.Int32
}

func (s *StallWatch) In(b *bubble.Bubble, f func(), g *Goroutines) {
	if s.Wedged != nil {
		return
	}
	done := b.Start(f)
	tick := time.NewTicker(max(s.Bound/stallChecks, time.Millisecond))
	defer tick.Stop()
	seen, since := s.Progress.Load(), time.Now()
	for {
		select {
		case p := <-done:
			if p != nil {
				panic(p)
			}
			return
		case now := <-tick.C:
			if n := s.Progress.Load(); n != seen || s.Pacing.Load() > 0 {
				// It went on, or it waits for a live run's presenter.
				seen, since = n, now
				continue
			}
			if now.Sub(since) >= s.Bound {
				s.wedge(done, g)
				return
			}
		}
	}
}

// stallChecks is how many times within a stall bound in looks at the
// run's progress.
const stallChecks = 10

// wedge gives the run up: the call on the scheduler's goroutine has not
// come back (done). The scheduler fails the run as soon as it can; the
// world is closed once the call has returned. The error says where the
// lock code was when it was given up, as a blocked call's does.
func (s *StallWatch) wedge(done <-chan any, g *Goroutines) {
	who := "lock code"
	if p := s.Last.Load(); p != nil {
		who = *p
	}
	where := ""
	if a := s.LastA.Load(); a != nil {
		if at := g.WhereRunning(a); at != "" {
			where = ", " + at
		}
	}
	s.Wedged = fmt.Errorf("%w: %s did not reach a Redis command, a sleep or a program point, nor block, within %s of wall time%s: "+
		"it runs without end, or waits for something outside the run (a mutex held for good, a channel made outside it, the network)", ErrStalled, who, s.Bound, where)
	s.Aborted.Store(true)
	s.WedgedDone = done
}

// Mark notes who runs now, for a stall (read only in a bubble).
func (s *StallWatch) Mark(a *Actor) {
	name := a.Name + InCall(a)
	s.Last.Store(&name)
	s.LastA.Store(a)
}

// RootID is the id of the actor a message speaks for: a flight's is its
// parent's.
func RootID(a *Actor) int {
	if a.Flight && a.Parent != nil {
		return a.Parent.ID
	}
	return a.ID
}

func CmdText(m Msg) string {
	if m.Cmd == nil {
		return ""
	}
	return command.Format(m.Cmd)
}

// clock is the bubble's time as virtual time.
func ClockNow() time.Duration { return time.Since(Epoch) }

// LateWake bounds how far past the lesson's end wakesLater lets the
// bubble's clock run. With no timer set the clock gets there at once; a
// timer of the lock's that wakes lock code sooner ends the wait there.
const LateWake = time.Hour

// CallName names what actor a is in: "A's Release", "A.watchdog".
func CallName(a *Actor) string {
	if a.Bg || a.Flight {
		return a.Name
	}
	switch a.Op {
	case trace.OpAcquire, trace.OpReenter:
		return a.Name + "'s TryAcquire"
	case trace.OpRelease, trace.OpLeave:
		return a.Name + "'s Release"
	}
	return a.Name
}

// ErrStalled is in the error of a run that gave up lock code which sent
// nothing for the stall bound: it spins, computes for longer than the
// bound, or waits for something outside the run.
var ErrStalled = errors.New("stalled")

// ErrStalled ends a run its caller gave up; the caller reports the stall.
var ErrGivenUp = errors.New("stalled")

// QuietWindow is how long a real run that sends from goroutines of lock
// code's own waits for a message before it takes the run as quiet.
const QuietWindow = 5 * time.Millisecond

// ResetTimer restarts timer with d.
func ResetTimer(timer *time.Timer, d time.Duration) {
	if !timer.Stop() {
		select {
		case <-timer.C:
		default:
		}
	}
	timer.Reset(d)
}

// InCall names the lock call a running actor is in, for a stall: "'s
// Release", "'s TryAcquire"; nothing outside one.
func InCall(a *Actor) string {
	if a.Bg || a.Flight {
		return ""
	}
	switch a.Op {
	case trace.OpAcquire, trace.OpReenter:
		return " (in its lock's TryAcquire)"
	case trace.OpRelease, trace.OpLeave:
		return " (in its lock's Release)"
	}
	return ""
}
