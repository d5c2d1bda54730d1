package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/internal/bubble"
)

// An embedded world runs in a testing/synctest bubble (internal/bubble):
// its actors, the goroutines lock code starts, the go-redis clients and the
// embedded servers' connections are all the bubble's. That gives the engine
// two things the Go runtime knows and a program otherwise cannot learn:
//
//   - whether the run has gone quiet: bubble.Wait returns once every other
//     goroutine of the run is durably blocked (at the gate, in a sleep, on a
//     channel of lock code's own), so a library's goroutines need no
//     watching;
//   - a clock for lock code: time.Now, time.Sleep, tickers and context
//     deadlines in lock code are on the bubble's clock, which is the run's
//     virtual time. The scheduler moves it (passTime) exactly as far as it
//     moves the run's time, and lock code that a timer of its own wakes
//     meanwhile stops it where that happens.
//
// The scheduler runs on the bubble's root goroutine: every entry point that
// lets the world run goes through in.

// In runs f on the world's scheduler goroutine: the bubble's root on
// embedded servers, the caller's own on real ones. A run that handles no
// message for StallTimeout of wall time — lock code that spins, or waits
// for something outside the run (a mutex held for good, a channel made
// outside it) — is given up: in returns, the world is wedged (Err says
// why), and the scheduler stops the run once that lock code comes back.
// The run's progress is looked at stallChecks times a bound, so a stall
// is named within a tenth of the bound after it, not up to twice the bound
// as a timer reset on progress did.
func (s *Sched) In(f func()) {
	if s.Bub == nil {
		f()
		return
	}
	s.Watch.In(s.Bub, f, &s.Goroutines)
}

// RunErr is the run's error, a stall first.
func (w *World) RunError() error {
	if w.Sched.Watch.Wedged != nil {
		return w.Sched.Watch.Wedged
	}
	return w.Err
}

// receive takes the next message. Messages that arrived while time passed
// come first; then a message some goroutine has on its way; and when none
// is, once every goroutine of the run is blocked, every message then on
// its way, in a fixed order. It reports false when none is: the run is
// quiet.
func (s *Sched) receive() (model.Msg, bool) {
	if len(s.Inbox) == 0 {
		select {
		case m := <-s.Ch:
			return m, true
		default:
		}
		s.collect()
	}
	if len(s.Inbox) == 0 {
		return model.Msg{}, false
	}
	m := s.Inbox[0]
	s.Inbox = s.Inbox[1:]
	return m, true
}

// collect waits until every goroutine of the run is blocked and adds each
// message on its way to the inbox. Goroutines that a timer woke at the same
// moment send in the order the Go scheduler ran them; the inbox puts them in
// the order of their actors, so that a run is the same every time.
func (s *Sched) collect() {
	bubble.Wait()
	for {
		select {
		case m := <-s.Ch:
			s.Inbox = append(s.Inbox, m)
			continue
		default:
		}
		break
	}
	slices.SortStableFunc(s.Inbox, func(x, y model.Msg) int {
		if c := cmp.Or(cmp.Compare(model.RootID(x.A), model.RootID(y.A)),
			cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Node, y.Node)); c != 0 {
			return c
		}
		// Formatted only for a tie: it was a sixtieth of a search's time.
		return strings.Compare(model.CmdText(x), model.CmdText(y))
	})
}

// passTime lets the bubble's clock run to t and reports the virtual time it
// reached: t, or earlier if lock code that a timer of its own woke sent the
// scheduler a message meanwhile (a watchdog's ticker, a retry's sleep, a
// context's deadline). Every message sent at that moment is then in the
// inbox. On real servers time is the wall clock's, and passTime reports t.
func (w *World) passTime(t time.Duration) time.Duration {
	if w.Sched.Bub == nil || len(w.Sched.Inbox) > 0 {
		return max(t, w.Now)
	}
	d := t - model.ClockNow()
	if d <= 0 {
		return max(t, w.Now)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	// Lock code's timers due at t fire with the scheduler's: whichever the
	// select sees first, collect gathers what all of them sent.
	select {
	case m := <-w.Sched.Ch:
		w.Sched.Inbox = append(w.Sched.Inbox, m)
	case <-timer.C:
	}
	w.Sched.collect()
	return model.ClockNow()
}

// PassTo moves the run's time to t, or to where lock code woke before it.
// It reports whether it got to t.
func (w *World) PassTo(t time.Duration) bool {
	reached := w.passTime(t)
	w.advance(reached)
	return reached >= t
}

// LibBlocked is the first actor blocked in lock code with none of its
// client's commands parked: it waits for a timer of the lock's own, or for
// nothing that will come.
func (s *Sched) LibBlocked() *model.Actor {
	for _, a := range s.Actors {
		c := a.Client
		if a.State == model.StateLib && !c.Crashed && !c.Paused && !s.waitsForFlights(c) {
			return a
		}
	}
	return nil
}

// wakesLater says whether a timer of the lock's, set for after the run's
// time, wakes lock code that then sends the scheduler a message, within
// LateWake of virtual time: the lesson is over, so the run's time stays
// where it is, and the message waits in the inbox for the shutdown, which
// answers it with redis.ErrClosed. Lock code that a timer wakes and that
// goes back to waiting without a message (a ticker's loop with nothing to
// do) is not seen: it counts as blocked once LateWake has passed.
func (s *Sched) wakesLater() bool {
	timer := time.NewTimer(model.LateWake)
	defer timer.Stop()
	select {
	case m := <-s.Ch:
		s.Inbox = append(s.Inbox, m)
		return true
	case <-timer.C:
		return false
	}
}

// Stuck fails the run for actor a, blocked in lock code when nothing in the
// run can wake it.
func (w *World) Stuck(a *model.Actor) {
	past := model.LateWake.String()
	if w.Wall.Real != nil {
		past = w.Sched.Watch.Bound.String() + " of wall time"
	}
	where := w.Sched.Goroutines.WhereBlocked(a)
	if where != "" {
		where = ", " + where + ","
	}
	if where == "" {
		where = ","
	}
	w.Fail(fmt.Errorf("%s is blocked in the lock implementation %s%s and nothing in the run can wake it: "+
		"every goroutine of the run waits, no timer of the lock's wakes it (up to %s past the lesson's end), and none of its commands is at the gate",
		model.CallName(a), w.Impl.Name, where, past))
}

// settleTimers lets the timers lock code left behind fire once the run is
// shut down, so that goroutines waiting for them (a ticker's loop that a
// Release never stopped) meet the closed run and end: up to the run's
// horizon of virtual time, which costs nothing when no timer is set.
func (w *World) settleTimers() {
	if w.Sched.Bub != nil {
		time.Sleep(w.Setup.Horizon)
	}
}
