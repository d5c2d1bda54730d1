package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file moves the run's time: RunUntil lets the actors run and moves
// the clock to the next moment something is due (NextDeadline), advance
// expires the keys whose TTL ran out on the way, and tick handles what is due
// at an instant.

// RunUntil moves time to target, letting every actor run whenever it can. With
// untilQuiet it stops early once every client has finished or crashed. A
// cancelled context stops it too, on embedded servers as on real ones.
//
// Time moves to the next moment something of the engine's is due (a sleep,
// an expiry, a replica catching up) or to target, and stops earlier where
// lock code that a timer of its own woke sends something (PassTo). With
// untilQuiet and nothing due, it moves only for such lock code: when none
// wakes by the horizon, a client blocked in lock code is stuck for good.
func (w *World) RunUntil(target time.Duration, untilQuiet bool) {
	for w.Err == nil {
		if err := w.Ctx.Err(); err != nil {
			w.Fail(err)
			break
		}
		w.WakeDue()
		w.settle()
		w.tick()
		if w.Sched.runnableNow() {
			continue // a WAIT ended: its actor goes on before time moves
		}
		if untilQuiet && w.quiet() {
			return
		}
		next, ok := w.NextDeadline()
		if ok && next <= target {
			w.PassTo(next)
			continue
		}
		if untilQuiet {
			if w.awaitLib(target) {
				continue
			}
			break
		}
		if target <= w.Now {
			break
		}
		if w.PassTo(target) {
			w.tick()
			break
		}
	}
}

// awaitLib lets the bubble's clock run until horizon for an actor blocked in
// lock code with nothing else due: a timer of the lock's own may wake it
// (then its message is in the inbox, the run's time moves there, and
// awaitLib reports true: the run goes on). If none does by the horizon,
// the lesson is over; the actor is stuck only if no timer wakes it after
// the horizon either (wakesLater): a watchdog's ticker or a retry's sleep
// due just past the lesson's end is lock code the lesson ended, not lock
// code blocked for good.
func (w *World) awaitLib(horizon time.Duration) bool {
	a := w.Sched.LibBlocked()
	if a != nil && w.Wall.Real != nil {
		return w.Sched.awaitLibReal(a, horizon)
	}
	if a == nil || w.Sched.Bub == nil {
		return len(w.Sched.Inbox) > 0
	}
	if reached := w.passTime(horizon); len(w.Sched.Inbox) > 0 {
		w.advance(reached)
		return true
	}
	if !w.Sched.wakesLater() {
		w.Stuck(a)
	}
	return false
}

// runnableNow says whether some actor in line may move now.
func (s *Sched) runnableNow() bool {
	for _, a := range s.Queue {
		if model.Runnable(a) {
			return true
		}
	}
	return false
}

// quiet says whether every client has finished or crashed, and every
// command on its way to a server has arrived (OnTheWire).
func (w *World) quiet() bool {
	for _, c := range w.Clients {
		if c.Biz.State != model.StateDone && !c.Crashed {
			return false
		}
	}
	for _, a := range w.Sched.Actors {
		if model.OnTheWire(a) && a.State != model.StateDone {
			return false
		}
	}
	return true
}

// NextDeadline is the earliest future moment something happens by itself:
// a sleeper wakes, a key expires, a replica catches up, Sentinel promotes a
// replica, the liveness bound runs out.
func (w *World) NextDeadline() (time.Duration, bool) {
	best, ok := w.Sched.nextSleeper()
	consider := func(t time.Duration) {
		if t > w.Now && (!ok || t < best) {
			best, ok = t, true
		}
	}
	for _, srv := range w.Fleet.Servers {
		if !srv.Up {
			continue
		}
		for _, k := range srv.Keys {
			if k.TTL > 0 {
				consider(w.Now + k.TTL)
			}
		}
	}
	for _, e := range w.Fleet.Repl {
		consider(e.Due)
	}
	switch {
	case w.Fleet.Promoting && w.Fleet.Sentinel != nil:
		consider(w.Now + model.SentinelPoll) // the Sentinels say when
	case w.Fleet.Promoting:
		consider(w.Fleet.PromoteAt)
	}
	if d, on := w.Judge.Due(); on {
		consider(d)
	}
	return best, ok
}

// advance sets the clock to t: keys whose TTL runs out expire, each with an
// event.
func (w *World) advance(t time.Duration) {
	delta := t - w.Now
	if delta <= 0 {
		return
	}
	if w.Wall.Real != nil {
		w.Wall.waitUntil(t)
	}
	w.Now = t
	type expiry struct {
		srv string
		key trace.KeyState
	}
	var expired []expiry
	var replicated []string
	for _, srv := range w.Fleet.Servers {
		if !srv.Up {
			continue
		}
		srv.B.Advance(t, delta)
		before := srv.Keys
		srv.Keys = w.Fleet.ReadKeys(srv, before)
		for _, k := range before {
			if _, still := model.FindKey(srv.Keys, k.Key); !still && k.TTL > 0 && k.TTL <= delta {
				expired = append(expired, expiry{srv.Name, k})
			}
		}
		if w.Wall.Real != nil && srv.Primary >= 0 && !model.SameKeys(before, srv.Keys) {
			// A real replica changes when the relay delivers.
			replicated = append(replicated, srv.Name)
		}
	}
	for _, x := range expired {
		w.Emit(trace.Event{Kind: trace.KindExpire, Server: x.srv, Text: narrate.Expired(x.key, x.srv),
			Short: text.Text{EN: "expired", ZH: "过期"}})
	}
	for _, name := range replicated {
		w.Emit(trace.Event{Kind: trace.KindReplicate, Server: name, Text: narrate.ReplicatedReal(name),
			Short: text.Text{EN: "replicated", ZH: "已复制"}})
	}
	w.Fleet.DrainSentinels()
	if w.Fleet.Promoting && w.Fleet.Sentinel == nil && w.Now >= w.Fleet.PromoteAt {
		w.Fleet.Promote()
	}
}

// tick handles what is due now: replication and the liveness bound.
func (w *World) tick() {
	w.Fleet.ApplyReplication()
	w.Sched.CheckWaits()
	w.Observe(invariant.Observation{Kind: invariant.Instant})
}
