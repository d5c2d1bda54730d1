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
func (w *World) ctxEnded(m msg) {
	if w.stopped(m.a) {
		w.deferred = append(w.deferred, m)
		return
	}
	if m.kind == msgGiveUp {
		w.giveUp(m.a, m)
		return
	}
	w.ungate(m.a, m.err)
}

// stopped says whether a's client is stopped by the run: paused, crashed,
// or a held by the scheduler.
func (w *World) stopped(a *actor) bool {
	c := a.client
	return c.paused || c.crashed || a.held || a.flight && a.parent.held
}

// undefer handles the deferred cancellations of clients that go on again;
// it reports whether it handled any.
func (w *World) undefer() bool {
	var later []msg
	done := false
	// In a fixed order: the timers fired at once, in the runtime's order.
	slices.SortStableFunc(w.deferred, func(x, y msg) int {
		if x.a.id != y.a.id {
			return x.a.id - y.a.id
		}
		return x.a.node - y.a.node
	})
	for _, m := range w.deferred {
		if w.stopped(m.a) {
			later = append(later, m)
			continue
		}
		w.ctxEnded(m)
		done = true
	}
	w.deferred = later
	return done
}

// ungate handles msgUngate: a's context ended (err) while its command was
// parked at the gate. A command not yet let go is never sent: its
// goroutine goes on with the context's error, and a deadline that passed
// shows in the trace as the command's failure. One let go already has the
// go-ahead for its answer.
func (w *World) ungate(a *actor, err error) {
	switch {
	case slices.Contains(w.pending, a):
		w.pending = slices.DeleteFunc(w.pending, func(b *actor) bool { return b == a })
		w.loosenGoroutine(a)
	case a.state == stateParked && a.flight:
		w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
		a.park = parkNone
		w.notSent(a, err)
		w.loosenGoroutine(a)
	case a.state == stateParked:
		w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
		a.state, a.park = stateRunning, parkNone
		w.running++
		w.notSent(a, err)
	default:
		return
	}
	a.resume <- errCancelled
}

// notSent records a command parked at the gate whose context's deadline
// passed: the client sees a timeout, and the command never leaves. A
// context cancelled on purpose (a watchdog being stopped) is the lock's own
// doing, and the trace says nothing of it.
func (w *World) notSent(a *actor, err error) {
	if a.cmd == nil || !errors.Is(err, context.DeadlineExceeded) {
		return
	}
	w.commandDone(a, msg{cmd: a.cmd, node: a.node, server: w.route[a.node],
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
func (w *World) giveUp(a *actor, m msg) {
	due := a.state == stateParked && a.park == parkNone && slices.Contains(w.queue, a)
	if a.state != stateSleeping && !due {
		return
	}
	w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
	o := m.child
	o.client, o.parent, o.bg, o.op = a.client, a.parent, a.bg, a.op
	o.orphan, o.inCmd, o.sent = true, true, true
	o.cmd, o.node, o.deadline, o.sentAt, o.gaveUp = m.cmd, m.node, a.deadline, a.sentAt, w.now
	o.state = stateSleeping
	if due {
		o.state, o.park = stateParked, parkNone
		w.enqueue(o)
	}
	if a.flight {
		// It takes the flight's place and name; the flight's goroutine
		// goes back into lock code.
		o.id, o.name = a.id, a.name
		w.actors[slices.Index(w.actors, a)] = o
	} else {
		o.parent = a
		w.seat(o, a.name+"/"+w.servers[m.server].name)
	}
	w.commandDone(a, msg{cmd: m.cmd, node: m.node, server: m.server, err: &command.GaveUpError{
		Client: a.client.name, Server: w.servers[m.server].name,
		Waited: w.now - a.sentAt, Due: a.deadline, Err: m.err}})
	a.inCmd = false
	if a.flight {
		w.loosen(a)
	} else {
		a.state, a.park = stateRunning, parkNone
		w.running++
	}
	a.resume <- errGaveUp
}
