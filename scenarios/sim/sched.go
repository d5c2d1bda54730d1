package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is the scheduler: settle lets the actors in line run one at a
// time, handle applies each message an actor sends, and the line itself is
// kept here (runnable, enqueue, dequeue, wakeDue), with the flights that lock
// code sends from goroutines of its own (place, seat, loosen). Waiting for
// the running actors, and the stall bound, are in drain.go; stopping them all
// at the end, shutdown, is in close.go.

// sched is the scheduler's side of a run: the goroutines it controls (the
// actors, and the flights lock code sends from goroutines of its own), the
// messages they send it, and the line they wait in. Its methods keep the
// line, read the goroutines' states, and answer a parked command whose
// context ended (ctxend.go) or a WAIT (wait.go); what a message does to
// the world is world.handle's.
type sched struct {
	w  *world
	ch chan msg // actor → scheduler, unbuffered: the order things happened
	// bub is the synctest bubble an embedded world runs in (nil on real
	// servers); see bubbled.go. inbox holds messages received while time
	// passed, in the order they are handled.
	bub   *bubble.Bubble
	inbox []msg
	// goroutines are the actors' goroutines, for a stall's error and the
	// gate (stuck.go).
	goroutines goroutines
	// watch gives up a run that stalls (bubbled.go).
	watch stallWatch

	actors  []*actor // every actor ever made, in creation order
	queue   []*actor // the line: parked actors that may be let go
	running int      // actors running now
	// Flights (see actor): pending ones reached the gate and wait for their
	// place in line; flights says some lock code of this run sends from
	// goroutines of its own; loose, that such a goroutine may be running now.
	pending        []*actor
	flights, loose bool
	// fanRunning counts the calls of Env.Fan that run lock code now: not
	// parked at the gate, not returned.
	fanRunning int
	// deferred: cancellations (msgUngate, msgGiveUp) of clients the run
	// has stopped, handled when they go on (ctxEnded).
	deferred []msg
}

// settle runs actors, one at a time, until none can move without time
// passing. The running actor keeps going until it sleeps, finishes or is
// stopped by a hold, a pause or a crash; then the next runnable actor in line
// goes.
func (w *world) settle() {
	for w.err == nil {
		w.drain()
		if w.err != nil {
			return
		}
		a := w.sched.dequeue()
		if a == nil {
			return
		}
		if w.wall.pace(a); w.err != nil {
			return
		}
		w.start(a)
	}
}

// waitsForFlights says whether client c has commands from goroutines of its
// lock code parked at the gate.
func (s *sched) waitsForFlights(c *client) bool {
	for _, a := range s.actors {
		if a.flight && a.client == c && (a.state == stateParked || a.state == stateSleeping) {
			// Parked at the gate, or on its way to a slow server.
			return true
		}
	}
	for _, a := range s.pending {
		if a.client == c {
			return true
		}
	}
	return false
}

// seat names f base, or base#2, base#3 … while an actor not done has the
// name, and gives it its place among the actors: a done one's of the same
// name, or a new one.
func (s *sched) seat(f *actor, base string) {
	f.name = base
	for n := 2; ; n++ {
		i := slices.IndexFunc(s.actors, func(b *actor) bool { return b.name == f.name })
		if i < 0 {
			f.id = len(s.actors)
			s.actors = append(s.actors, f)
			return
		}
		if s.actors[i].state == stateDone {
			f.id = s.actors[i].id
			s.actors[i] = f
			return
		}
		f.name = fmt.Sprintf("%s#%d", base, n)
	}
}

// place gives flights that reached the gate their names and their place in
// line, in (client's actor, node, command) order: the order in which the
// goroutines of the lock code happened to arrive is the Go scheduler's, not
// the run's. A flight takes the place of a finished one of the same name.
func (w *world) place() {
	if len(w.sched.pending) == 0 {
		return
	}
	slices.SortStableFunc(w.sched.pending, func(x, y *actor) int {
		if x.parent.id != y.parent.id {
			return x.parent.id - y.parent.id
		}
		if x.node != y.node {
			return x.node - y.node
		}
		return strings.Compare(command.Format(x.cmd), command.Format(y.cmd))
	})
	for _, f := range w.sched.pending {
		w.sched.seat(f, f.parent.name+"/"+w.fleet.servers[w.fleet.route[f.node]].name)
		f.op = f.parent.op
		w.checkHold(f)
	}
	w.sched.queue = slices.Insert(w.sched.queue, 0, w.sched.pending...)
	w.sched.pending = nil
}

// loosen lets a flight's goroutine go back into lock code after its
// command: the flight is over. A call of Env.Fan runs on where the engine
// sees it; any other goroutine is one whoever waits for may have been
// waiting for.
func (s *sched) loosen(f *actor) {
	s.loosenGoroutine(f)
	if !f.fan {
		s.wakeLib(f.client)
	}
}

// loosenGoroutine marks a flight's goroutine as running lock code again.
func (s *sched) loosenGoroutine(f *actor) {
	if f.fan {
		f.state = stateDone
		s.fanRunning++
		return
	}
	f.state = stateLoose
	s.loose = true
}

// wakeLib lets the actors of c that are blocked in lock code run again: a
// goroutine they wait for has gone on.
func (s *sched) wakeLib(c *client) {
	for _, a := range s.actors {
		if a.client == c && a.state == stateLib {
			a.state = stateRunning
			s.running++
		}
	}
	s.loose = true
}

// start lets a parked actor go on: it sends its command, passes its program
// point, or returns from its sleep.
func (w *world) start(a *actor) {
	switch a.park {
	case parkPoint:
		w.passPoint(a)
	case parkStart, parkNone:
		a.woke = w.now
	case parkGate:
		a.inCmd = true
	}
	a.park, a.sent = parkNone, false
	a.state = stateRunning
	w.sched.running++
	w.sched.watch.mark(a)
	a.resume <- nil
}

// runnable says whether a parked actor may move now. A hung client's call
// holds up its business goroutine only: every goroutine its lock started —
// Env.Go's, a go statement's, a time.AfterFunc's — runs on, as a watchdog
// does in a live process whose business thread is stuck.
func runnable(a *actor) bool {
	if a.sent {
		// A pipeline's command already on the wire: nothing of its
		// client's keeps it back.
		return a.state == stateParked
	}
	c := a.client
	held := a.held || a.flight && a.parent.held
	return a.state == stateParked && !held && !c.paused && !c.crashed && !(c.hung && a == c.biz)
}

// enqueue puts a at the back of the line.
func (s *sched) enqueue(a *actor) {
	if !slices.Contains(s.queue, a) {
		s.queue = append(s.queue, a)
	}
}

// dequeue takes the first runnable actor in line.
func (s *sched) dequeue() *actor {
	for i, a := range s.queue {
		if runnable(a) {
			s.queue = slices.Delete(s.queue, i, i+1)
			return a
		}
	}
	return nil
}

// handle applies one message from an actor.
func (w *world) handle(m msg) {
	a := m.a
	if a.state == stateAbandoned {
		// A stalled actor came back while the shutdown ends the others.
		if m.kind == msgSpawn {
			m.child.state = stateAbandoned
		}
		closed(m)
		return
	}
	if a.client != nil {
		a.client.takeToken()
	}
	if a.state == stateLib {
		// Blocked in lock code by the runtime's account, yet it went on: a
		// goroutine outside the run woke it. It runs again.
		a.state = stateRunning
		w.sched.running++
	}
	if m.cmd != nil {
		w.seeTokens(a.client, m.cmd)
	}
	switch m.kind {
	case msgGate, msgPoint:
		w.sched.running--
		a.state = stateParked
		if m.kind == msgGate {
			a.park, a.cmd, a.node, a.sent = parkGate, m.cmd, m.node, m.sent
		} else {
			a.park, a.point = parkPoint, m.point
		}
		w.checkHold(a)
		// The actor that just ran goes on first: it runs until it blocks.
		w.sched.queue = slices.Insert(w.sched.queue, 0, a)
	case msgFlight:
		a.park, a.cmd, a.node, a.sent = parkGate, m.cmd, m.node, m.sent
		a.id = a.parent.id
		w.sched.pending = append(w.sched.pending, a)
		if a.fan {
			w.sched.fanRunning--
			break
		}
		w.sched.flights, w.sched.loose = true, true
	case msgCmdDone:
		a.inCmd = false
		w.commandDone(a, m)
		if a.orphan {
			// Its goroutine, the gate's, ends.
			w.sched.running--
			a.state = stateDone
		} else if a.flight {
			// Its goroutine goes back into lock code; whoever waits for
			// its answer may go on.
			w.sched.running--
			w.sched.loosen(a)
			// Its client may have reached its hold: the next of its
			// flights in line is where it stops.
			for _, f := range w.sched.queue {
				if f.flight && f.parent == a.parent && f.state == stateParked {
					w.checkHold(f)
					break
				}
			}
		}
	case msgSleep:
		w.sched.running--
		a.state, a.deadline = stateSleeping, m.deadline
	case msgWait:
		w.sched.startWait(a, m.wait)
	case msgSlow:
		w.sched.running--
		a.state, a.deadline, a.sentAt = stateSleeping, m.deadline, w.now
		w.emit(trace.Event{Kind: trace.KindSchedule, Actor: a.name, Server: w.fleet.servers[m.server].name,
			Text:  narrate.SlowSend(a.name, command.Format(m.cmd), w.fleet.servers[m.server].name, m.deadline-w.now),
			Short: text.Text{EN: "sent…", ZH: "发出…"}})
	case msgUnsleep:
		// Cancelled in its sleep, or after the clock woke it but before it
		// ran: either way it runs now, and the scheduler waits for it (its
		// canceller goes on at the same time, once it has seen it finish).
		// Once it has been let go, the go-ahead is its answer.
		if a.state == stateSleeping || a.state == stateParked {
			w.sched.queue = slices.DeleteFunc(w.sched.queue, func(b *actor) bool { return b == a })
			a.state, a.park = stateRunning, parkNone
			w.sched.running++
			a.resume <- nil
		}
	case msgUngate, msgGiveUp:
		w.sched.ctxEnded(m)
	case msgNote:
		w.noted(a, m.note)
		w.sched.watch.mark(a)
	case msgSpawn:
		m.child.id = len(w.sched.actors)
		w.sched.actors = append(w.sched.actors, m.child)
		w.sched.enqueue(m.child)
	case msgFan:
		w.sched.running--
		a.state = stateFan
		w.sched.fanRunning += m.n
		a.resume <- nil // it starts the calls
	case msgFanExit:
		w.sched.fanRunning--
		if m.err != nil {
			w.fail(m.err)
		}
		if m.last {
			// Every call returned: the fan's actor goes on.
			a.state = stateRunning
			w.sched.running++
			a.resume <- nil
		}
	case msgExit:
		if m.err != nil {
			w.fail(m.err)
		}
		if a.state == stateRunning {
			w.sched.running--
		}
		a.state = stateDone
		w.sched.queue = slices.DeleteFunc(w.sched.queue, func(b *actor) bool { return b == a })
		// A watchdog that ends because it found the lock gone closed its
		// lost channel first: that is said, not that it stopped.
		w.checkLost(a.client)
		w.bgStopped(a)
	}
	w.checkLost(a.client)
	switch m.kind {
	case msgCmdDone, msgNote, msgSpawn:
		// The actor waits for this: scheduler and actors take turns, so
		// the scheduler never reads what a running actor writes.
		a.resume <- nil
	}
}

// wakeDue moves sleepers whose deadline has come into the line, in
// (deadline, creation) order.
func (w *world) wakeDue() {
	var due []*actor
	for _, a := range w.sched.actors {
		if a.state == stateSleeping && a.deadline <= w.now && (onTheWire(a) || !a.client.paused && !a.client.crashed) {
			due = append(due, a)
		}
	}
	slices.SortStableFunc(due, func(x, y *actor) int {
		if x.deadline != y.deadline {
			return int(x.deadline - y.deadline)
		}
		return x.id - y.id
	})
	for _, a := range due {
		if a.waitFor != nil {
			w.sched.finishWait(a, nil) // the WAIT timed out
			continue
		}
		a.state = stateParked
		a.park = parkNone
		w.sched.enqueue(a)
	}
}

// nextSleeper is the earliest deadline of a sleeper that can wake.
func (s *sched) nextSleeper() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, a := range s.actors {
		if a.state != stateSleeping || !onTheWire(a) && (a.client.paused || a.client.crashed) {
			continue
		}
		if !found || a.deadline < best {
			best, found = a.deadline, true
		}
	}
	return best, found
}
