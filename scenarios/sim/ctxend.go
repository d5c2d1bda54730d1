package sim

import (
	"context"
	"errors"
	"slices"

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
// msgUngate (parked at the gate) or msgGiveUp (on its way to a slow
// server). A client the run has stopped — paused, crashed, held by the
// scheduler — runs nothing, and its timers are frozen with it: a deadline
// that passes meanwhile is seen when it goes on again (deferred), and never
// if it crashed.
func (s *sched) ctxEnded(m msg) {
	if s.stopped(m.a) {
		s.deferred = append(s.deferred, m)
		return
	}
	if m.kind == msgGiveUp {
		s.giveUp(m.a, m)
		return
	}
	s.ungate(m.a, m.err)
}

// stopped says whether a's client is stopped by the run: paused, crashed,
// or a held by the scheduler.
func (s *sched) stopped(a *actor) bool {
	c := a.client
	return c.paused || c.crashed || a.held || a.flight && a.parent.held
}

// undefer handles the deferred cancellations of clients that go on again;
// it reports whether it handled any.
func (s *sched) undefer() bool {
	var later []msg
	done := false
	// In a fixed order: the timers fired at once, in the runtime's order.
	slices.SortStableFunc(s.deferred, func(x, y msg) int {
		if x.a.id != y.a.id {
			return x.a.id - y.a.id
		}
		return x.a.node - y.a.node
	})
	for _, m := range s.deferred {
		if s.stopped(m.a) {
			later = append(later, m)
			continue
		}
		s.ctxEnded(m)
		done = true
	}
	s.deferred = later
	return done
}

// ungate handles msgUngate: a's context ended (err) while its command was
// parked at the gate. A command not yet let go is never sent: its
// goroutine goes on with the context's error, and a deadline that passed
// shows in the trace as the command's failure. One let go already has the
// go-ahead for its answer.
func (s *sched) ungate(a *actor, err error) {
	switch {
	case slices.Contains(s.pending, a):
		s.pending = slices.DeleteFunc(s.pending, func(b *actor) bool { return b == a })
		s.loosenGoroutine(a)
	case a.state == stateParked && a.flight:
		s.queue = slices.DeleteFunc(s.queue, func(b *actor) bool { return b == a })
		a.park = parkNone
		s.notSent(a, err)
		s.loosenGoroutine(a)
	case a.state == stateParked:
		s.queue = slices.DeleteFunc(s.queue, func(b *actor) bool { return b == a })
		a.state, a.park = stateRunning, parkNone
		s.running++
		s.notSent(a, err)
	default:
		return
	}
	a.resume <- errCancelled
}

// notSent records a command parked at the gate whose context's deadline
// passed: the client sees a timeout, and the command never leaves. A
// context cancelled on purpose (a watchdog being stopped) is the lock's own
// doing, and the trace says nothing of it.
func (s *sched) notSent(a *actor, err error) {
	if a.cmd == nil || !errors.Is(err, context.DeadlineExceeded) {
		return
	}
	s.w.commandDone(a, msg{cmd: a.cmd, node: a.node, server: s.w.fleet.route[a.node],
		err: &command.NotSentError{Client: a.client.name, Err: err}})
}

// onTheWire says whether a is a command that goes on whatever its client
// does: an orphan reaches its server even if the client pauses or crashes.
func onTheWire(a *actor) bool { return a.orphan }

// giveUp handles msgGiveUp: actor a's command, on its way to a slow server,
// lost its client, whose context ended. If the command had not yet been
// let go at the server, the client sees the context's error now (a command
// event, as a timeout is), and m.child carries the command on; otherwise
// the go-ahead already sent is a's answer.
func (s *sched) giveUp(a *actor, m msg) {
	due := a.state == stateParked && a.park == parkNone && slices.Contains(s.queue, a)
	if a.state != stateSleeping && !due {
		return
	}
	s.queue = slices.DeleteFunc(s.queue, func(b *actor) bool { return b == a })
	o := m.child
	o.client, o.parent, o.bg, o.op = a.client, a.parent, a.bg, a.op
	o.orphan, o.inCmd, o.sent = true, true, true
	o.cmd, o.node, o.deadline, o.sentAt, o.gaveUp = m.cmd, m.node, a.deadline, a.sentAt, s.w.now
	o.state = stateSleeping
	if due {
		o.state, o.park = stateParked, parkNone
		s.enqueue(o)
	}
	if a.flight {
		// It takes the flight's place and name; the flight's goroutine
		// goes back into lock code.
		o.id, o.name = a.id, a.name
		s.actors[slices.Index(s.actors, a)] = o
	} else {
		o.parent = a
		s.seat(o, a.name+"/"+s.w.fleet.servers[m.server].name)
	}
	s.w.commandDone(a, msg{cmd: m.cmd, node: m.node, server: m.server, err: &command.GaveUpError{
		Client: a.client.name, Server: s.w.fleet.servers[m.server].name,
		Waited: s.w.now - a.sentAt, Due: a.deadline, Err: m.err}})
	a.inCmd = false
	if a.flight {
		s.loosen(a)
	} else {
		a.state, a.park = stateRunning, parkNone
		s.running++
	}
	a.resume <- errGaveUp
}
