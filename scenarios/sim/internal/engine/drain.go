package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// This file waits for the running actors: Drain handles messages until none
// runs (in a bubble the Go runtime says when; on real servers the wall clock
// does, drainReal), and the stall bound (WithStallTimeout) gives up lock code
// that sends nothing for that long, naming who it gave up.

// Drain handles messages until no actor is running: each running actor, and
// every goroutine lock code started, is parked at the gate, sleeping, or
// blocked in lock code, and no message is on its way. In a bubble the Go
// runtime says when that is (receive); on real servers a run that sends
// from goroutines of its own is taken as quiet after QuietWindow without a
// message (drainReal).
func (w *World) Drain() {
	w.drainOnce()
	for w.Err == nil && w.Sched.undefer() {
		w.drainOnce()
	}
}

// drainOnce is drain without the deferred cancellations.
func (w *World) drainOnce() {
	if w.Sched.Bub == nil {
		w.drainReal()
		return
	}
	for w.Err == nil && w.Sched.busy() {
		if w.Sched.Watch.Aborted.Load() {
			// The caller gave the run up (in): it ends here.
			w.Fail(model.ErrGivenUp)
			w.Sched.abandon()
			w.refuseInbox()
			return
		}
		m, ok := w.Sched.receive()
		if !ok {
			w.quiesced()
			break
		}
		w.handle(m)
		w.Sched.Watch.Progress.Add(1)
	}
	if w.Err == nil && !w.Sched.loose {
		// Every call of an Env.Fan has stopped: the flights they
		// parked take their place in line.
		w.place()
	}
}

// busy says whether some goroutine of the run may still send a message
// without time passing.
func (s *Sched) busy() bool {
	return s.running > 0 || s.loose || s.fanRunning > 0 || len(s.Inbox) > 0
}

// quiesced is what the run's going quiet means: running actors are blocked
// in lock code (StateLib), flights whose goroutine went back into lock code
// are done, and flights that reached the gate meanwhile take their place in
// line, in a fixed order. An actor whose command is under way cannot be
// blocked: its reply never came.
func (w *World) quiesced() {
	for _, a := range w.Sched.Actors {
		if a.State == model.StateRunning && a.InCmd {
			w.Fail(fmt.Errorf("stalled: %s's command %s got no reply", a.Name, command.Format(a.Cmd)))
			w.Sched.abandon()
			return
		}
	}
	for _, a := range w.Sched.Actors {
		switch {
		case a.Flight && a.State == model.StateLoose:
			a.State = model.StateDone
		case a.State == model.StateRunning:
			w.Sched.running--
			a.State = model.StateLib
		}
	}
	w.Sched.loose = false
	w.place()
}

// drainReal is drain on real servers, whose network the runtime cannot see
// into: it waits for messages on the wall clock. Lock code that sends from
// goroutines of its own may go quiet without a message; after QuietWindow
// without one, and no reply on its way, the run is taken as quiet. So is a
// run whose running actors all wait in-process (realquiet.go): a watchdog
// in its select on a ticker, a Release waiting for it.
func (w *World) drainReal() {
	timer := time.NewTimer(w.Sched.Watch.Bound)
	defer timer.Stop()
	quiet := time.NewTimer(model.QuietWindow)
	defer quiet.Stop()
	for (w.Sched.running > 0 || w.Sched.loose || w.Sched.fanRunning > 0) && w.Err == nil {
		var tick <-chan time.Time
		if (w.Sched.running > 0 || w.Sched.loose) && !w.Sched.replyDue() {
			model.ResetTimer(quiet, model.QuietWindow)
			tick = quiet.C
		}
		select {
		case m := <-w.Sched.Ch:
			w.handle(m)
		case <-tick:
			if !w.Sched.flights && !w.Sched.runningBlocked() {
				continue // it runs: the stall bound still counts
			}
			w.quiesced()
			continue
		case <-timer.C:
			w.stalled()
			return
		}
		model.ResetTimer(timer, w.Sched.Watch.Bound)
	}
	if w.Err == nil && !w.Sched.loose {
		w.place()
	}
}

// replyDue says whether a running actor's command is under way: its reply
// will come.
func (s *Sched) replyDue() bool {
	for _, a := range s.Actors {
		if a.State == model.StateRunning && a.InCmd {
			return true
		}
	}
	return false
}

// stalled gives a real run up: no message for the stall bound. The error
// names each running actor and the line its goroutine is at, as an
// embedded stall does.
func (w *World) stalled() {
	var names []string
	for _, a := range w.Sched.Actors {
		if a.State != model.StateRunning {
			continue
		}
		name := a.Name + model.InCall(a)
		if at := w.Sched.Goroutines.WhereRunning(a); at != "" {
			name += " " + at
		}
		names = append(names, name)
	}
	if w.Sched.fanRunning > 0 {
		names = append(names, fmt.Sprintf("%d call(s) of Env.Fan", w.Sched.fanRunning))
	}
	w.Fail(fmt.Errorf("%w: %s did not reach a Redis command, a clock sleep or a program point within %s of wall time",
		model.ErrStalled, strings.Join(names, "; "), w.Sched.Watch.Bound))
	w.Sched.abandon()
}

// refuseInbox answers every message already taken and not yet handled
// with redis.ErrClosed, and abandons its sender: the run was given up
// between the two (a stalled call that came back and sent once more).
// Left in the inbox, its sender would wait for an answer forever.
func (w *World) refuseInbox() {
	for _, m := range w.Sched.Inbox {
		m.A.State = model.StateAbandoned
		w.handle(m)
	}
	w.Sched.Inbox = nil
}

// abandon stops waiting for the actors still running: they stalled. The run
// is over (w.err is set); see shutdown.
func (s *Sched) abandon() {
	for _, a := range s.Actors {
		if a.State == model.StateRunning {
			a.State = model.StateAbandoned
		}
	}
	s.running = 0
}

// StallTimeout turns a hang into an error that names the actor: lock code
// that spins, or blocks on something outside the run, would otherwise stop
// it forever. It is a debugging aid on the wall clock and never shows in a
// trace; a world takes it when it is built (its StallWatch's bound).
var StallTimeout = 10 * time.Second

type stallKey struct{}

// WithStallTimeout sets the stall bound of the runs started with ctx
// (sim.WithStallTimeout).
func WithStallTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, stallKey{}, d)
}

// stallFrom is ctx's stall bound, or StallTimeout.
func stallFrom(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(stallKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return StallTimeout
}
