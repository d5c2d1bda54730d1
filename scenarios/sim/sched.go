package sim

import (
	"fmt"
	"runtime"
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
		if w.pace(a); w.err != nil {
			return
		}
		w.start(a)
	}
}

// drain handles messages until no actor is running. Once lock code has sent
// from goroutines of its own, that is not enough: an actor may be blocked in
// lock code, waiting for them, and they may still be on their way to the
// gate. Then drain also asks the runtime whether every goroutine of the run
// has stopped (quiesce), and until then it polls.
//
// The poll yields the processor a few times before it asks: the run's other
// goroutines go on meanwhile, and a quiet run is seen in microseconds. A
// timer would not do for this: one under a millisecond, in a process where
// nothing else runs, lasts a whole millisecond (the runtime's poller sleeps
// in milliseconds), and a run on five nodes waits for quiet thousands of
// times. Only once the runtime has said the run is busy does the poll back
// off on a timer.
func (w *World) drain() {
	timer := time.NewTimer(stallTimeout)
	defer timer.Stop()
	var poll *time.Timer
	wait := time.Duration(0) // the next poll's timer; 0: yield instead
	yields := 0
	defer func() {
		if w.err == nil && !w.loose {
			// Every call of an Env.Fan has stopped: the flights they
			// parked take their place in line.
			w.place()
		}
	}()
	for (w.running > 0 || w.loose || w.fanRunning > 0) && w.err == nil {
		var tick <-chan time.Time
		if w.flights && (w.running > 0 || w.loose) && !w.replyDue() {
			// A message may never come: look again shortly, then ask the
			// runtime.
			if wait == 0 {
				select {
				case m := <-w.ch:
					w.handle(m)
					yields = 0
					w.resetStall(timer)
					continue
				default:
				}
				if yields < quietYields {
					yields++
					runtime.Gosched()
					continue
				}
				yields = 0
				if !w.quiesce() {
					wait = 50 * time.Microsecond // busy: back off
				}
				continue
			}
			if poll == nil {
				poll = time.NewTimer(wait)
				defer poll.Stop()
			} else {
				poll.Reset(wait)
			}
			tick = poll.C
		}
		select {
		case m := <-w.ch:
			w.handle(m)
			wait, yields = 0, 0
		case <-tick:
			if w.quiesce() {
				wait = 0
				continue
			}
			wait = min(2*wait, 2*time.Millisecond)
			continue
		case <-timer.C:
			w.stalled()
			return
		}
		if poll != nil && !poll.Stop() {
			select {
			case <-poll.C:
			default:
			}
		}
		w.resetStall(timer)
	}
}

// quietYields is how often drain yields the processor before it asks the
// runtime whether the run is quiet.
const quietYields = 8

// resetStall restarts the stall timer after a message.
func (w *World) resetStall(timer *time.Timer) {
	if !timer.Stop() {
		select {
		case <-timer.C:
		default:
		}
	}
	timer.Reset(stallTimeout)
}

// replyDue says whether a running actor's command is under way: its reply
// will come.
func (w *World) replyDue() bool {
	for _, a := range w.actors {
		if a.state == stateRunning && a.inCmd {
			return true
		}
	}
	return false
}

func (w *World) stalled() {
	names := w.runningNames()
	if w.fanRunning > 0 {
		names = append(names, fmt.Sprintf("%d call(s) of Env.Fan", w.fanRunning))
	}
	w.fail(fmt.Errorf("stalled: %s did not reach a Redis command, a clock sleep or a program point within %s",
		strings.Join(names, ", "), stallTimeout))
	w.abandon()
}

// quiesce says whether every goroutine of the run has stopped: each running
// actor, and every goroutine the lock code started, is blocked in lock code
// or parked at the gate, and no message is on its way. Then running actors
// are blocked in lock code (stateLib), flights whose goroutine went back
// into lock code are done, and flights that reached the gate meanwhile take
// their place in line, in a fixed order.
func (w *World) quiesce() bool {
	gs := goroutines()
	self := goid()
	// The roots are the actors' own goroutines; every goroutine they
	// started, transitively, is a helper: the flights' goroutines, and any
	// other the lock code runs. A helper whose parent has exited is known
	// from an earlier look.
	roots := map[uint64]bool{}
	for _, a := range w.actors {
		if !a.flight && a.state != stateAbandoned {
			roots[a.gid.Load()] = true
		}
	}
	delete(roots, 0) // an actor whose goroutine has not run yet
	for id := range w.helpers {
		if _, alive := gs[id]; !alive {
			delete(w.helpers, id)
		}
	}
	for grew := true; grew; {
		grew = false
		for id, g := range gs {
			if id != self && !roots[id] && !w.helpers[id] && (roots[g.parent] || w.helpers[g.parent]) {
				w.helpers[id] = true
				grew = true
			}
		}
	}
	for id := range w.helpers {
		if !gs[id].blocked() {
			return false
		}
	}
	stuck := false
	for _, a := range w.actors {
		if a.state != stateRunning {
			continue
		}
		if a.inCmd {
			return false // its reply is on its way
		}
		if a.flight {
			continue // its goroutine is a helper
		}
		if g, alive := gs[a.gid.Load()]; !alive || !g.blocked() {
			return false // it runs, or has sent its exit
		}
		if !w.waitsForFlights(a.client) {
			stuck = true
		}
	}
	if stuck {
		// Blocked with nothing of its own parked: lock code that waits for
		// something outside the run, or for nothing. A lock held by a
		// goroutine of another run looks the same for a moment: only what
		// lasts is an error.
		if w.stuckAt.IsZero() {
			w.stuckAt = time.Now()
		}
		if time.Since(w.stuckAt) < stuckTimeout {
			return false
		}
	}
	w.stuckAt = time.Time{}
	for _, a := range w.actors {
		switch {
		case a.flight && a.state == stateLoose:
			a.state = stateDone
		case a.state == stateRunning:
			w.running--
			a.state = stateLib
		}
	}
	w.loose = false
	w.place()
	if stuck {
		for _, a := range w.actors {
			if a.state == stateLib && !w.waitsForFlights(a.client) {
				w.fail(fmt.Errorf("%s is blocked inside the lock implementation %s, and none of its commands is waiting to be sent: "+
					"lock code must wait only for Redis commands, Env.Clock and goroutines it started (never the wall clock)", a.name, w.impl.Name))
				break
			}
		}
	}
	return true
}

// stuckTimeout is how long lock code may look blocked on nothing before
// that is an error.
const stuckTimeout = 250 * time.Millisecond

// waitsForFlights says whether client c has commands from goroutines of its
// lock code parked at the gate.
func (w *World) waitsForFlights(c *client) bool {
	for _, a := range w.actors {
		if a.flight && a.client == c && (a.state == stateParked || a.state == stateSleeping) {
			// Parked at the gate, or on its way to a slow server.
			return true
		}
	}
	for _, a := range w.pending {
		if a.client == c {
			return true
		}
	}
	return false
}

// place gives flights that reached the gate their names and their place in
// line, in (client's actor, node, command) order: the order in which the
// goroutines of the lock code happened to arrive is the Go scheduler's, not
// the run's. A flight takes the place of a finished one of the same name.
func (w *World) place() {
	if len(w.pending) == 0 {
		return
	}
	slices.SortStableFunc(w.pending, func(x, y *actor) int {
		if x.parent.id != y.parent.id {
			return x.parent.id - y.parent.id
		}
		if x.node != y.node {
			return x.node - y.node
		}
		return strings.Compare(formatCommand(x.cmd), formatCommand(y.cmd))
	})
	for _, f := range w.pending {
		base := f.parent.name + "/" + w.servers[w.route[f.node]].name
		f.name = base
		for n := 2; ; n++ {
			i := slices.IndexFunc(w.actors, func(b *actor) bool { return b.name == f.name })
			if i < 0 {
				f.id = len(w.actors)
				w.actors = append(w.actors, f)
				break
			}
			if w.actors[i].state == stateDone {
				f.id = w.actors[i].id
				w.actors[i] = f
				break
			}
			f.name = fmt.Sprintf("%s#%d", base, n)
		}
		f.op = f.parent.op
		w.checkHold(f)
	}
	w.queue = slices.Insert(w.queue, 0, w.pending...)
	w.pending = nil
}

// loosen lets a flight's goroutine go back into lock code after its
// command: the flight is over. A call of Env.Fan runs on where the engine
// sees it; any other goroutine is one whoever waits for may have been
// waiting for.
func (w *World) loosen(f *actor) {
	w.loosenGoroutine(f)
	if !f.fan {
		w.wakeLib(f.client)
	}
}

// loosenGoroutine marks a flight's goroutine as running lock code again.
func (w *World) loosenGoroutine(f *actor) {
	if f.fan {
		f.state = stateDone
		w.fanRunning++
		return
	}
	f.state = stateLoose
	w.loose = true
}

// wakeLib lets the actors of c that are blocked in lock code run again: a
// goroutine they wait for has gone on.
func (w *World) wakeLib(c *client) {
	for _, a := range w.actors {
		if a.client == c && a.state == stateLib {
			a.state = stateRunning
			w.running++
		}
	}
	w.loose = true
}

func (w *World) runningNames() []string {
	var names []string
	for _, a := range w.actors {
		if a.state == stateRunning {
			names = append(names, a.name+inCall(a))
		}
	}
	return names
}

// inCall names the lock call a running actor is in, for a stall: "'s
// Release", "'s TryAcquire"; nothing outside one.
func inCall(a *actor) string {
	if a.bg || a.flight {
		return ""
	}
	switch a.op {
	case OpAcquire, OpReenter:
		return " (in its lock's TryAcquire)"
	case OpRelease, OpLeave:
		return " (in its lock's Release)"
	}
	return ""
}

// start lets a parked actor go on: it sends its command, passes its program
// point, or returns from its sleep.
func (w *World) start(a *actor) {
	switch a.park {
	case parkPoint:
		w.passPoint(a)
	case parkStart, parkNone:
		a.woke = w.now
	case parkGate:
		a.inCmd = true
	}
	a.park = parkNone
	a.state = stateRunning
	w.running++
	a.resume <- nil
}

// runnable says whether a parked actor may move now.
func (w *World) runnable(a *actor) bool {
	c := a.client
	held := a.held || a.flight && a.parent.held
	return a.state == stateParked && !held && !c.paused && !c.crashed && !(c.hung && !a.bg)
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
	if a.state == stateLib {
		// Blocked in lock code by the runtime's account, yet it went on: a
		// goroutine outside the run woke it. It runs again.
		a.state = stateRunning
		w.running++
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
	case msgFlight:
		a.park, a.cmd, a.node = parkGate, m.cmd, m.node
		a.id = a.parent.id
		w.pending = append(w.pending, a)
		if a.fan {
			w.fanRunning--
			break
		}
		w.helpers[a.gid.Load()] = true
		w.flights, w.loose = true, true
	case msgCmdDone:
		a.inCmd = false
		w.commandDone(a, m)
		if a.flight {
			// Its goroutine goes back into lock code; whoever waits for
			// its answer may go on.
			w.running--
			w.loosen(a)
			// Its client may have reached its hold: the next of its
			// flights in line is where it stops.
			for _, f := range w.queue {
				if f.flight && f.parent == a.parent && f.state == stateParked {
					w.checkHold(f)
					break
				}
			}
		}
	case msgSleep:
		w.running--
		a.state, a.deadline = stateSleeping, m.deadline
	case msgWait:
		w.startWait(a, m.wait)
	case msgSlow:
		w.running--
		a.state, a.deadline = stateSleeping, m.deadline
		w.emit(Event{Kind: KindSchedule, Actor: a.name, Server: w.servers[m.server].name,
			Text:  textSlowSend(a.name, formatCommand(m.cmd), w.servers[m.server].name, m.deadline-w.now),
			Short: Text{EN: "sent…", ZH: "发出…"}})
	case msgUnsleep:
		// Cancelled in its sleep, or after the clock woke it but before it
		// ran: either way it runs now, and the scheduler waits for it (its
		// canceller goes on at the same time, once it has seen it finish).
		// Once it has been let go, the go-ahead is its answer.
		if a.state == stateSleeping || a.state == stateParked {
			w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
			a.state, a.park = stateRunning, parkNone
			w.running++
			a.resume <- nil
		}
	case msgUngate:
		switch {
		case slices.Contains(w.pending, a):
			w.pending = slices.DeleteFunc(w.pending, func(b *actor) bool { return b == a })
			w.loosenGoroutine(a)
			a.resume <- errCancelled
		case a.state == stateParked && a.flight:
			w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
			a.park = parkNone
			w.loosenGoroutine(a)
			a.resume <- errCancelled
		case a.state == stateParked:
			w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
			a.state, a.park = stateRunning, parkNone
			w.running++
			a.resume <- errCancelled
		}
		// Otherwise it had been let go: the go-ahead is its answer.
	case msgNote:
		w.noted(a, m.note)
	case msgSpawn:
		m.child.id = len(w.actors)
		w.actors = append(w.actors, m.child)
		w.enqueue(m.child)
	case msgFan:
		w.running--
		a.state = stateFan
		w.fanRunning += m.n
		a.resume <- nil // it starts the calls
	case msgFanExit:
		w.fanRunning--
		if m.err != nil {
			w.fail(m.err)
		}
		if m.last {
			// Every call returned: the fan's actor goes on.
			a.state = stateRunning
			w.running++
			a.resume <- nil
		}
	case msgExit:
		if m.err != nil {
			w.fail(m.err)
		}
		if a.state == stateRunning {
			w.running--
		}
		a.state = stateDone
		w.queue = slices.DeleteFunc(w.queue, func(b *actor) bool { return b == a })
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
		if next.flight {
			// Its goroutine goes back into lock code with the error, and
			// whoever waits for it goes on.
			w.running--
			w.loosen(next)
		}
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
