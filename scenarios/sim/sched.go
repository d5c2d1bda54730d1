package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// stallTimeout turns a hang into an error that names the actor: lock code
// that blocks outside the gate and the clock would otherwise stop the run
// forever. It is a debugging aid on the wall clock and never shows in a trace.
var stallTimeout = 10 * time.Second

// settle runs actors, one at a time, until none can move without time
// passing. The running actor keeps going until it sleeps, finishes or is
// stopped by a hold, a pause or a crash; then the next runnable actor in line
// goes.
func (w *World) settle() {
	for w.err == nil {
		w.drain()
		if w.err != nil {
			return
		}
		a := w.dequeue()
		if a == nil {
			return
		}
		w.start(a)
	}
}

// drain handles messages until no actor is running.
func (w *World) drain() {
	timer := time.NewTimer(stallTimeout)
	defer timer.Stop()
	for w.running > 0 && w.err == nil {
		select {
		case m := <-w.ch:
			w.handle(m)
		case <-timer.C:
			w.fail(fmt.Errorf("stalled: %s did not reach a Redis command, a clock sleep or a program point within %s",
				strings.Join(w.runningNames(), ", "), stallTimeout))
			w.abandon()
			return
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(stallTimeout)
	}
}

func (w *World) runningNames() []string {
	var names []string
	for _, a := range w.actors {
		if a.state == stateRunning {
			names = append(names, a.name)
		}
	}
	return names
}

// start lets a parked actor go on: it sends its command, passes its program
// point, or returns from its sleep.
func (w *World) start(a *actor) {
	switch a.park {
	case parkPoint:
		w.passPoint(a)
	case parkStart, parkNone:
		a.woke = w.now
	}
	a.park = parkNone
	a.state = stateRunning
	w.running++
	a.resume <- nil
}

// runnable says whether a parked actor may move now.
func (w *World) runnable(a *actor) bool {
	c := a.client
	return a.state == stateParked && !a.held && !c.paused && !c.crashed && !(c.hung && !a.bg)
}

// enqueue puts a at the back of the line.
func (w *World) enqueue(a *actor) {
	if !slices.Contains(w.queue, a) {
		w.queue = append(w.queue, a)
	}
}

// dequeue takes the first runnable actor in line.
func (w *World) dequeue() *actor {
	for i, a := range w.queue {
		if w.runnable(a) {
			w.queue = slices.Delete(w.queue, i, i+1)
			return a
		}
	}
	return nil
}

// handle applies one message from an actor.
func (w *World) handle(m msg) {
	a := m.a
	if a.state == stateAbandoned {
		// A stalled actor came back while the shutdown ends the others.
		if m.kind == msgSpawn {
			m.child.state = stateAbandoned
		}
		closed(m)
		return
	}
	switch m.kind {
	case msgGate, msgPoint:
		w.running--
		a.state = stateParked
		if m.kind == msgGate {
			a.park, a.cmd, a.node = parkGate, m.cmd, m.node
		} else {
			a.park, a.point = parkPoint, m.point
		}
		w.checkHold(a)
		// The actor that just ran goes on first: it runs until it blocks.
		w.queue = slices.Insert(w.queue, 0, a)
	case msgCmdDone:
		w.commandDone(a, m)
	case msgSleep:
		w.running--
		a.state, a.deadline = stateSleeping, m.deadline
	case msgWait:
		w.startWait(a, m.wait)
	case msgUnsleep:
		// Cancelled in its sleep, or after the clock woke it but before it
		// ran: either way it runs now, and the scheduler waits for it (its
		// canceller goes on at the same time, once it has seen it finish).
		if a.state == stateSleeping || a.state == stateParked {
			w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
			a.state, a.park = stateRunning, parkNone
			w.running++
		}
	case msgUngate:
		if a.state == stateParked {
			w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
			a.state, a.park = stateRunning, parkNone
			w.running++
		}
	case msgNote:
		w.noted(a, m.note)
	case msgSpawn:
		m.child.id = len(w.actors)
		w.actors = append(w.actors, m.child)
		w.enqueue(m.child)
	case msgExit:
		if m.err != nil {
			w.fail(m.err)
		}
		if a.state == stateRunning {
			w.running--
		}
		a.state = stateDone
		w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
	}
	w.checkLost(a.client)
	switch m.kind {
	case msgCmdDone, msgNote, msgSpawn, msgUnsleep, msgUngate:
		// The actor waits for this: scheduler and actors take turns, so
		// the scheduler never reads what a running actor writes.
		a.resume <- nil
	}
}

// wakeDue moves sleepers whose deadline has come into the line, in
// (deadline, creation) order.
func (w *World) wakeDue() {
	var due []*actor
	for _, a := range w.actors {
		if a.state == stateSleeping && a.deadline <= w.now && !a.client.paused && !a.client.crashed {
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
			w.finishWait(a, nil) // the WAIT timed out
			continue
		}
		a.state = stateParked
		a.park = parkNone
		w.enqueue(a)
	}
}

// nextSleeper is the earliest deadline of a sleeper that can wake.
func (w *World) nextSleeper() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, a := range w.actors {
		if a.state != stateSleeping || a.client.paused || a.client.crashed {
			continue
		}
		if !found || a.deadline < best {
			best, found = a.deadline, true
		}
	}
	return best, found
}

// shutdown stops every actor: parked ones are resumed with redis.ErrClosed,
// and so is everything they do afterwards, until all goroutines have
// finished. A stalled actor, stuck in lock code outside the gate and the
// clock, cannot be stopped: it was abandoned when it stalled (before or
// during the shutdown), and is told redis.ErrClosed whenever it comes back,
// so its goroutine ends as soon as that code returns.
func (w *World) shutdown() {
	w.closing.Store(true)
	w.err = nil
	for {
		// Whoever runs (a run that failed mid-command) goes on until it
		// parks, finishes or stalls; then the next parked one is stopped.
		w.drain()
		w.err = nil // a stall on the way out: that actor is abandoned
		var next *actor
		for _, a := range w.actors {
			if a.state == stateParked || a.state == stateSleeping {
				next = a
				break
			}
		}
		if next == nil {
			break
		}
		next.state = stateRunning
		w.running++
		next.resume <- redis.ErrClosed
	}
	// From now on no one reads ch (see send). A world may be closed twice.
	select {
	case <-w.done:
	default:
		close(w.done)
	}
}

// abandon stops waiting for the actors still running: they stalled. The run
// is over (w.err is set); see shutdown.
func (w *World) abandon() {
	for _, a := range w.actors {
		if a.state == stateRunning {
			a.state = stateAbandoned
		}
	}
	w.running = 0
}
