package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

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

// stallWatch gives up a run that makes no progress for its bound of wall
// time, and says who ran last and where.
type stallWatch struct {
	bound    time.Duration          // stallTimeout when the world was built
	progress atomic.Uint64          // messages handled: a run that makes none stalls
	last     atomic.Pointer[string] // who the scheduler last let go, for a stall
	lastA    atomic.Pointer[actor]  // that actor; nil for the lock's New
	wedged   error                  // set by the caller when the run stalled (see in)
	// wedgedDone: the stalled call's end; aborted tells the scheduler.
	wedgedDone <-chan any
	aborted    atomic.Bool
	// pacing counts the calls into the pacer under way: a live run waiting
	// for its presenter is not stalled (in).
	pacing atomic.Int32
}

// in runs f on the world's scheduler goroutine: the bubble's root on
// embedded servers, the caller's own on real ones. A run that handles no
// message for stallTimeout of wall time — lock code that spins, or waits
// for something outside the run (a mutex held for good, a channel made
// outside it) — is given up: in returns, the world is wedged (Err says
// why), and the scheduler stops the run once that lock code comes back.
// The run's progress is looked at stallChecks times a bound, so a stall
// is named within a tenth of the bound after it, not up to twice the bound
// as a timer reset on progress did.
func (s *sched) in(f func()) {
	if s.bub == nil {
		f()
		return
	}
	s.watch.in(s.bub, f, &s.goroutines)
}

func (s *stallWatch) in(b *bubble.Bubble, f func(), g *goroutines) {
	if s.wedged != nil {
		return
	}
	done := b.Start(f)
	tick := time.NewTicker(max(s.bound/stallChecks, time.Millisecond))
	defer tick.Stop()
	seen, since := s.progress.Load(), time.Now()
	for {
		select {
		case p := <-done:
			if p != nil {
				panic(p)
			}
			return
		case now := <-tick.C:
			if n := s.progress.Load(); n != seen || s.pacing.Load() > 0 {
				// It went on, or it waits for a live run's presenter.
				seen, since = n, now
				continue
			}
			if now.Sub(since) >= s.bound {
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
func (s *stallWatch) wedge(done <-chan any, g *goroutines) {
	who := "lock code"
	if p := s.last.Load(); p != nil {
		who = *p
	}
	where := ""
	if a := s.lastA.Load(); a != nil {
		if at := g.whereRunning(a); at != "" {
			where = ", " + at
		}
	}
	s.wedged = fmt.Errorf("%w: %s did not reach a Redis command, a sleep or a program point, nor block, within %s of wall time%s: "+
		"it runs without end, or waits for something outside the run (a mutex held for good, a channel made outside it, the network)", ErrStalled, who, s.bound, where)
	s.aborted.Store(true)
	s.wedgedDone = done
}

// mark notes who runs now, for a stall (read only in a bubble).
func (s *stallWatch) mark(a *actor) {
	name := a.name + inCall(a)
	s.last.Store(&name)
	s.lastA.Store(a)
}

// runErr is the run's error, a stall first.
func (w *world) runError() error {
	if w.sched.watch.wedged != nil {
		return w.sched.watch.wedged
	}
	return w.err
}

// receive takes the next message. Messages that arrived while time passed
// come first; then a message some goroutine has on its way; and when none
// is, once every goroutine of the run is blocked, every message then on
// its way, in a fixed order. It reports false when none is: the run is
// quiet.
func (s *sched) receive() (msg, bool) {
	if len(s.inbox) == 0 {
		select {
		case m := <-s.ch:
			return m, true
		default:
		}
		s.collect()
	}
	if len(s.inbox) == 0 {
		return msg{}, false
	}
	m := s.inbox[0]
	s.inbox = s.inbox[1:]
	return m, true
}

// collect waits until every goroutine of the run is blocked and adds each
// message on its way to the inbox. Goroutines that a timer woke at the same
// moment send in the order the Go scheduler ran them; the inbox puts them in
// the order of their actors, so that a run is the same every time.
func (s *sched) collect() {
	bubble.Wait()
	for {
		select {
		case m := <-s.ch:
			s.inbox = append(s.inbox, m)
			continue
		default:
		}
		break
	}
	slices.SortStableFunc(s.inbox, func(x, y msg) int {
		return cmp.Or(cmp.Compare(rootID(x.a), rootID(y.a)),
			cmp.Compare(x.kind, y.kind), cmp.Compare(x.node, y.node),
			strings.Compare(cmdText(x), cmdText(y)))
	})
}

// rootID is the id of the actor a message speaks for: a flight's is its
// parent's.
func rootID(a *actor) int {
	if a.flight && a.parent != nil {
		return a.parent.id
	}
	return a.id
}

func cmdText(m msg) string {
	if m.cmd == nil {
		return ""
	}
	return command.Format(m.cmd)
}

// passTime lets the bubble's clock run to t and reports the virtual time it
// reached: t, or earlier if lock code that a timer of its own woke sent the
// scheduler a message meanwhile (a watchdog's ticker, a retry's sleep, a
// context's deadline). Every message sent at that moment is then in the
// inbox. On real servers time is the wall clock's, and passTime reports t.
func (w *world) passTime(t time.Duration) time.Duration {
	if w.sched.bub == nil || len(w.sched.inbox) > 0 {
		return max(t, w.now)
	}
	d := t - clockNow()
	if d <= 0 {
		return max(t, w.now)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	// Lock code's timers due at t fire with the scheduler's: whichever the
	// select sees first, collect gathers what all of them sent.
	select {
	case m := <-w.sched.ch:
		w.sched.inbox = append(w.sched.inbox, m)
	case <-timer.C:
	}
	w.sched.collect()
	return clockNow()
}

// clock is the bubble's time as virtual time.
func clockNow() time.Duration { return time.Since(epoch) }

// passTo moves the run's time to t, or to where lock code woke before it.
// It reports whether it got to t.
func (w *world) passTo(t time.Duration) bool {
	reached := w.passTime(t)
	w.advance(reached)
	return reached >= t
}

// libBlocked is the first actor blocked in lock code with none of its
// client's commands parked: it waits for a timer of the lock's own, or for
// nothing that will come.
func (s *sched) libBlocked() *actor {
	for _, a := range s.actors {
		c := a.client
		if a.state == stateLib && !c.crashed && !c.paused && !s.waitsForFlights(c) {
			return a
		}
	}
	return nil
}

// lateWake bounds how far past the lesson's end wakesLater lets the
// bubble's clock run. With no timer set the clock gets there at once; a
// timer of the lock's that wakes lock code sooner ends the wait there.
const lateWake = time.Hour

// wakesLater says whether a timer of the lock's, set for after the run's
// time, wakes lock code that then sends the scheduler a message, within
// lateWake of virtual time: the lesson is over, so the run's time stays
// where it is, and the message waits in the inbox for the shutdown, which
// answers it with redis.ErrClosed. Lock code that a timer wakes and that
// goes back to waiting without a message (a ticker's loop with nothing to
// do) is not seen: it counts as blocked once lateWake has passed.
func (s *sched) wakesLater() bool {
	timer := time.NewTimer(lateWake)
	defer timer.Stop()
	select {
	case m := <-s.ch:
		s.inbox = append(s.inbox, m)
		return true
	case <-timer.C:
		return false
	}
}

// stuck fails the run for actor a, blocked in lock code when nothing in the
// run can wake it.
func (w *world) stuck(a *actor) {
	past := lateWake.String()
	if w.wall.real != nil {
		past = w.sched.watch.bound.String() + " of wall time"
	}
	where := w.sched.goroutines.whereBlocked(a)
	if where != "" {
		where = ", " + where + ","
	}
	if where == "" {
		where = ","
	}
	w.fail(fmt.Errorf("%s is blocked in the lock implementation %s%s and nothing in the run can wake it: "+
		"every goroutine of the run waits, no timer of the lock's wakes it (up to %s past the lesson's end), and none of its commands is at the gate",
		callName(a), w.impl.Name, where, past))
}

// callName names what actor a is in: "A's Release", "A.watchdog".
func callName(a *actor) string {
	if a.bg || a.flight {
		return a.name
	}
	switch a.op {
	case trace.OpAcquire, trace.OpReenter:
		return a.name + "'s TryAcquire"
	case trace.OpRelease, trace.OpLeave:
		return a.name + "'s Release"
	}
	return a.name
}

// settleTimers lets the timers lock code left behind fire once the run is
// shut down, so that goroutines waiting for them (a ticker's loop that a
// Release never stopped) meet the closed run and end: up to the run's
// horizon of virtual time, which costs nothing when no timer is set.
func (w *world) settleTimers() {
	if w.sched.bub != nil {
		time.Sleep(w.setup.Horizon)
	}
}
