package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// stallTimeout turns a hang into an error that names the actor: lock code
// that spins, or blocks on something outside the run, would otherwise stop
// it forever. It is a debugging aid on the wall clock and never shows in a
// trace; a world takes it when it is built (World.stall).
var stallTimeout = 10 * time.Second

// ErrStalled is in the error of a run that gave up lock code which sent
// nothing for the stall bound: it spins, computes for longer than the
// bound, or waits for something outside the run.
var ErrStalled = errors.New("stalled")

type stallKey struct{}

// WithStallTimeout sets the stall bound of the runs started with ctx: how
// long lock code may go without a message of the wall clock before the run
// gives it up (10 s by default).
func WithStallTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, stallKey{}, d)
}

// stallFrom is ctx's stall bound, or stallTimeout.
func stallFrom(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(stallKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return stallTimeout
}

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

// drain handles messages until no actor is running: each running actor, and
// every goroutine lock code started, is parked at the gate, sleeping, or
// blocked in lock code, and no message is on its way. In a bubble the Go
// runtime says when that is (receive); on real servers a run that sends
// from goroutines of its own is taken as quiet after quietWindow without a
// message (drainReal).
func (w *World) drain() {
	w.drainOnce()
	for w.err == nil && w.undefer() {
		w.drainOnce()
	}
}

// drainOnce is drain without the deferred cancellations.
func (w *World) drainOnce() {
	if w.bub == nil {
		w.drainReal()
		return
	}
	for w.err == nil && w.busy() {
		if w.aborted.Load() {
			// The caller gave the run up (in): it ends here.
			w.fail(errStalled)
			w.abandon()
			w.refuseInbox()
			return
		}
		m, ok := w.receive()
		if !ok {
			w.quiesced()
			break
		}
		w.handle(m)
		w.progress.Add(1)
	}
	if w.err == nil && !w.loose {
		// Every call of an Env.Fan has stopped: the flights they
		// parked take their place in line.
		w.place()
	}
}

// busy says whether some goroutine of the run may still send a message
// without time passing.
func (w *World) busy() bool {
	return w.running > 0 || w.loose || w.fanRunning > 0 || len(w.inbox) > 0
}

// quiesced is what the run's going quiet means: running actors are blocked
// in lock code (stateLib), flights whose goroutine went back into lock code
// are done, and flights that reached the gate meanwhile take their place in
// line, in a fixed order. An actor whose command is under way cannot be
// blocked: its reply never came.
func (w *World) quiesced() {
	for _, a := range w.actors {
		if a.state == stateRunning && a.inCmd {
			w.fail(fmt.Errorf("stalled: %s's command %s got no reply", a.name, formatCommand(a.cmd)))
			w.abandon()
			return
		}
	}
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
}

// drainReal is drain on real servers, whose network the runtime cannot see
// into: it waits for messages on the wall clock. Lock code that sends from
// goroutines of its own may go quiet without a message; after quietWindow
// without one, and no reply on its way, the run is taken as quiet. So is a
// run whose running actors all wait in-process (realquiet.go): a watchdog
// in its select on a ticker, a Release waiting for it.
func (w *World) drainReal() {
	timer := time.NewTimer(w.stall)
	defer timer.Stop()
	quiet := time.NewTimer(quietWindow)
	defer quiet.Stop()
	for (w.running > 0 || w.loose || w.fanRunning > 0) && w.err == nil {
		var tick <-chan time.Time
		if (w.running > 0 || w.loose) && !w.replyDue() {
			resetTimer(quiet, quietWindow)
			tick = quiet.C
		}
		select {
		case m := <-w.ch:
			w.handle(m)
		case <-tick:
			if !w.flights && !w.runningBlocked() {
				continue // it runs: the stall bound still counts
			}
			w.quiesced()
			continue
		case <-timer.C:
			w.stalled()
			return
		}
		resetTimer(timer, w.stall)
	}
	if w.err == nil && !w.loose {
		w.place()
	}
}

// errStalled ends a run its caller gave up; the caller reports the stall.
var errStalled = errors.New("stalled")

// quietWindow is how long a real run that sends from goroutines of lock
// code's own waits for a message before it takes the run as quiet.
const quietWindow = 5 * time.Millisecond

// resetTimer restarts timer with d.
func resetTimer(timer *time.Timer, d time.Duration) {
	if !timer.Stop() {
		select {
		case <-timer.C:
		default:
		}
	}
	timer.Reset(d)
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

// stalled gives a real run up: no message for the stall bound. The error
// names each running actor and the line its goroutine is at, as an
// embedded stall does.
func (w *World) stalled() {
	var names []string
	for _, a := range w.actors {
		if a.state != stateRunning {
			continue
		}
		name := a.name + inCall(a)
		if at := w.whereRunning(a); at != "" {
			name += " " + at
		}
		names = append(names, name)
	}
	if w.fanRunning > 0 {
		names = append(names, fmt.Sprintf("%d call(s) of Env.Fan", w.fanRunning))
	}
	w.fail(fmt.Errorf("%w: %s did not reach a Redis command, a clock sleep or a program point within %s of wall time",
		ErrStalled, strings.Join(names, "; "), w.stall))
	w.abandon()
}

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

// seat names f base, or base#2, base#3 … while an actor not done has the
// name, and gives it its place among the actors: a done one's of the same
// name, or a new one.
func (w *World) seat(f *actor, base string) {
	f.name = base
	for n := 2; ; n++ {
		i := slices.IndexFunc(w.actors, func(b *actor) bool { return b.name == f.name })
		if i < 0 {
			f.id = len(w.actors)
			w.actors = append(w.actors, f)
			return
		}
		if w.actors[i].state == stateDone {
			f.id = w.actors[i].id
			w.actors[i] = f
			return
		}
		f.name = fmt.Sprintf("%s#%d", base, n)
	}
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
		w.seat(f, f.parent.name+"/"+w.servers[w.route[f.node]].name)
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
	a.park, a.sent = parkNone, false
	a.state = stateRunning
	w.running++
	w.mark(a)
	a.resume <- nil
}

// runnable says whether a parked actor may move now. A hung client's call
// holds up its business goroutine only: every goroutine its lock started —
// Env.Go's, a go statement's, a time.AfterFunc's — runs on, as a watchdog
// does in a live process whose business thread is stuck.
func (w *World) runnable(a *actor) bool {
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
	if a.client != nil {
		a.client.takeToken()
	}
	if a.state == stateLib {
		// Blocked in lock code by the runtime's account, yet it went on: a
		// goroutine outside the run woke it. It runs again.
		a.state = stateRunning
		w.running++
	}
	if m.cmd != nil {
		w.seeTokens(a.client, m.cmd)
	}
	switch m.kind {
	case msgGate, msgPoint:
		w.running--
		a.state = stateParked
		if m.kind == msgGate {
			a.park, a.cmd, a.node, a.sent = parkGate, m.cmd, m.node, m.sent
		} else {
			a.park, a.point = parkPoint, m.point
		}
		w.checkHold(a)
		// The actor that just ran goes on first: it runs until it blocks.
		w.queue = slices.Insert(w.queue, 0, a)
	case msgFlight:
		a.park, a.cmd, a.node, a.sent = parkGate, m.cmd, m.node, m.sent
		a.id = a.parent.id
		w.pending = append(w.pending, a)
		if a.fan {
			w.fanRunning--
			break
		}
		w.flights, w.loose = true, true
	case msgCmdDone:
		a.inCmd = false
		w.commandDone(a, m)
		if a.orphan {
			// Its goroutine, the gate's, ends.
			w.running--
			a.state = stateDone
		} else if a.flight {
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
		a.state, a.deadline, a.sentAt = stateSleeping, m.deadline, w.now
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
	case msgUngate, msgGiveUp:
		w.ctxEnded(m)
	case msgNote:
		w.noted(a, m.note)
		w.mark(a)
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
		if a.state != stateSleeping || !onTheWire(a) && (a.client.paused || a.client.crashed) {
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
		if next.orphan {
			// It never arrives; its goroutine ends.
			w.running--
			next.state = stateDone
		} else if next.flight {
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

// refuseInbox answers every message already taken and not yet handled
// with redis.ErrClosed, and abandons its sender: the run was given up
// between the two (a stalled call that came back and sent once more).
// Left in the inbox, its sender would wait for an answer forever.
func (w *World) refuseInbox() {
	for _, m := range w.inbox {
		m.a.state = stateAbandoned
		w.handle(m)
	}
	w.inbox = nil
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
