package engine

import (
	"context"
	"errors"
	"slices"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// A command on its way to a slow server (Timeline.Slow) has been sent: its
// client waits for the reply. When the client stops waiting first — its
// context ends, as with a per-node timeout (context.WithTimeout around
// the command, honoured by go-redis with ContextTimeoutEnabled) — the
// client goes on with the context's error, and the command goes on to the
// server all the same: it reaches the server when it was due and runs
// there, and its reply finds nobody waiting. The engine carries it as an
// orphan, an actor of its own, in the place and under the name of the
// flight that sent it ("A/redis-2"), or next to the actor that did.

// ctxEnded handles a command whose context ended before its reply came:
// MsgUngate (parked at the gate) or MsgGiveUp (on its way to a slow
// server). A client the run has stopped — paused, crashed, held by the
// scheduler — runs nothing, and its timers are frozen with it: a deadline
// that passes meanwhile is seen when it goes on again (deferred), and never
// if it crashed.
func (s *Sched) ctxEnded(m model.Msg) {
	if s.stopped(m.A) {
		s.Deferred = append(s.Deferred, m)
		return
	}
	if m.Kind == model.MsgGiveUp {
		s.giveUp(m.A, m)
		return
	}
	s.ungate(m.A, m.Err)
}

// stopped says whether a's client is stopped by the run: paused, crashed,
// or a held by the scheduler.
func (s *Sched) stopped(a *model.Actor) bool {
	c := a.Client
	return c.Paused || c.Crashed || a.Held || a.Flight && a.Parent.Held
}

// undefer handles the deferred cancellations of clients that go on again;
// it reports whether it handled any.
func (s *Sched) undefer() bool {
	var later []model.Msg
	done := false
	// In a fixed order: the timers fired at once, in the runtime's order.
	slices.SortStableFunc(s.Deferred, func(x, y model.Msg) int {
		if x.A.ID != y.A.ID {
			return x.A.ID - y.A.ID
		}
		return x.A.Node - y.A.Node
	})
	for _, m := range s.Deferred {
		if s.stopped(m.A) {
			later = append(later, m)
			continue
		}
		s.ctxEnded(m)
		done = true
	}
	s.Deferred = later
	return done
}

// ungate handles MsgUngate: a's context ended (err) while its command was
// parked at the gate. A command not yet let go is never sent: its
// goroutine goes on with the context's error, and a deadline that passed
// shows in the trace as the command's failure. One let go already has the
// go-ahead for its answer.
func (s *Sched) ungate(a *model.Actor, err error) {
	switch {
	case slices.Contains(s.pending, a):
		s.pending = slices.DeleteFunc(s.pending, func(b *model.Actor) bool { return b == a })
		s.loosenGoroutine(a)
	case a.State == model.StateParked && a.Flight:
		s.Queue = slices.DeleteFunc(s.Queue, func(b *model.Actor) bool { return b == a })
		a.Park = model.ParkNone
		s.notSent(a, err)
		s.loosenGoroutine(a)
	case a.State == model.StateParked:
		s.Queue = slices.DeleteFunc(s.Queue, func(b *model.Actor) bool { return b == a })
		a.State, a.Park = model.StateRunning, model.ParkNone
		s.running++
		s.notSent(a, err)
	default:
		return
	}
	a.Resume <- model.ErrCancelled
}

// notSent records a command parked at the gate whose context's deadline
// passed: the client sees a timeout, and the command never leaves. A
// context cancelled on purpose (a watchdog being stopped) is the lock's own
// doing, and the trace says nothing of it.
func (s *Sched) notSent(a *model.Actor, err error) {
	if a.Cmd == nil || !errors.Is(err, context.DeadlineExceeded) {
		return
	}
	s.W.commandDone(a, model.Msg{Cmd: a.Cmd, Node: a.Node, Server: s.W.Fleet.Route[a.Node],
		Err: &command.NotSentError{Client: a.Client.Name, Err: err}})
}

// giveUp handles MsgGiveUp: actor a's command, on its way to a slow server,
// lost its client, whose context ended. If the command had not yet been
// let go at the server, the client sees the context's error now (a command
// event, as a timeout is), and m.child carries the command on; otherwise
// the go-ahead already sent is a's answer.
func (s *Sched) giveUp(a *model.Actor, m model.Msg) {
	due := a.State == model.StateParked && a.Park == model.ParkNone && slices.Contains(s.Queue, a)
	if a.State != model.StateSleeping && !due {
		return
	}
	s.Queue = slices.DeleteFunc(s.Queue, func(b *model.Actor) bool { return b == a })
	o := m.Child
	o.Client, o.Parent, o.Bg, o.Op = a.Client, a.Parent, a.Bg, a.Op
	o.Orphan, o.InCmd, o.Sent = true, true, true
	o.Cmd, o.Node, o.Deadline, o.SentAt, o.GaveUp = m.Cmd, m.Node, a.Deadline, a.SentAt, s.W.Now
	o.State = model.StateSleeping
	if due {
		o.State, o.Park = model.StateParked, model.ParkNone
		s.enqueue(o)
	}
	if a.Flight {
		// It takes the flight's place and name; the flight's goroutine
		// goes back into lock code.
		o.ID, o.Name = a.ID, a.Name
		s.Actors[slices.Index(s.Actors, a)] = o
	} else {
		o.Parent = a
		s.seat(o, a.Name+"/"+s.W.Fleet.Servers[m.Server].Name)
	}
	s.W.commandDone(a, model.Msg{Cmd: m.Cmd, Node: m.Node, Server: m.Server, Err: &command.GaveUpError{
		Client: a.Client.Name, Server: s.W.Fleet.Servers[m.Server].Name,
		Waited: s.W.Now - a.SentAt, Due: a.Deadline, Err: m.Err}})
	a.InCmd = false
	if a.Flight {
		s.loosen(a)
	} else {
		a.State, a.Park = model.StateRunning, model.ParkNone
		s.running++
	}
	a.Resume <- model.ErrGaveUp
}
