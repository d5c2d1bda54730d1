package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is the scheduler: settle lets the actors in line run one at a
// time, handle applies each message an actor sends, and the line itself is
// kept here (runnable, enqueue, dequeue, WakeDue), with the flights that lock
// code sends from goroutines of its own (place, seat, loosen). Waiting for
// the running actors, and the stall bound, are in drain.go; stopping them all
// at the end, shutdown, is in close.go.

// Sched is the scheduler's side of a run: the goroutines it controls (the
// actors, and the flights lock code sends from goroutines of its own), the
// messages they send it, and the line they wait in. Its methods keep the
// line, read the goroutines' states, and answer a parked command whose
// context ended (ctxend.go) or a WAIT (wait.go); what a message does to
// the world is world.handle's.
type Sched struct {
	W  *World
	Ch chan model.Msg // actor → scheduler, unbuffered: the order things happened
	// Bub is the synctest bubble an embedded world runs in (nil on real
	// servers); see bubbled.go. inbox holds messages received while time
	// passed, in the order they are handled.
	Bub   *bubble.Bubble
	Inbox []model.Msg
	// Goroutines are the actors' goroutines, for a stall's error and the
	// gate (stuck.go).
	Goroutines model.Goroutines
	// Watch gives up a run that stalls (bubbled.go).
	Watch model.StallWatch

	Actors  []*model.Actor // every actor ever made, in creation order
	Queue   []*model.Actor // the line: parked actors that may be let go
	running int            // actors running now
	// Flights (see actor): pending ones reached the gate and wait for their
	// place in line; flights says some lock code of this run sends from
	// goroutines of its own; loose, that such a goroutine may be running now.
	pending        []*model.Actor
	flights, loose bool
	// fanRunning counts the calls of Env.Fan that run lock code now: not
	// parked at the gate, not returned.
	fanRunning int
	// Deferred: cancellations (MsgUngate, MsgGiveUp) of clients the run
	// has stopped, handled when they go on (ctxEnded).
	Deferred []model.Msg
}

// settle runs actors, one at a time, until none can move without time
// passing. The running actor keeps going until it sleeps, finishes or is
// stopped by a hold, a pause or a crash; then the next runnable actor in line
// goes.
func (w *World) settle() {
	for w.Err == nil {
		w.Drain()
		if w.Err != nil {
			return
		}
		a := w.Sched.dequeue()
		if a == nil {
			return
		}
		if w.Wall.pace(a); w.Err != nil {
			return
		}
		w.Start(a)
	}
}

// waitsForFlights says whether client c has commands from goroutines of its
// lock code parked at the gate.
func (s *Sched) waitsForFlights(c *model.Client) bool {
	for _, a := range s.Actors {
		if a.Flight && a.Client == c && (a.State == model.StateParked || a.State == model.StateSleeping) {
			// Parked at the gate, or on its way to a slow server.
			return true
		}
	}
	for _, a := range s.pending {
		if a.Client == c {
			return true
		}
	}
	return false
}

// seat names f base, or base#2, base#3 … while an actor not done has the
// name, and gives it its place among the actors: a done one's of the same
// name, or a new one.
func (s *Sched) seat(f *model.Actor, base string) {
	f.Name = base
	for n := 2; ; n++ {
		i := slices.IndexFunc(s.Actors, func(b *model.Actor) bool { return b.Name == f.Name })
		if i < 0 {
			f.ID = len(s.Actors)
			s.Actors = append(s.Actors, f)
			return
		}
		if s.Actors[i].State == model.StateDone {
			f.ID = s.Actors[i].ID
			s.Actors[i] = f
			return
		}
		f.Name = fmt.Sprintf("%s#%d", base, n)
	}
}

// place gives flights that reached the gate their names and their place in
// line, in (client's actor, node, command) order: the order in which the
// goroutines of the lock code happened to arrive is the Go scheduler's, not
// the run's. A flight takes the place of a finished one of the same name.
func (w *World) place() {
	if len(w.Sched.pending) == 0 {
		return
	}
	slices.SortStableFunc(w.Sched.pending, func(x, y *model.Actor) int {
		if x.Parent.ID != y.Parent.ID {
			return x.Parent.ID - y.Parent.ID
		}
		if x.Node != y.Node {
			return x.Node - y.Node
		}
		return strings.Compare(command.Format(x.Cmd), command.Format(y.Cmd))
	})
	for _, f := range w.Sched.pending {
		w.Sched.seat(f, f.Parent.Name+"/"+w.Fleet.Servers[w.Fleet.Route[f.Node]].Name)
		f.Op = f.Parent.Op
		w.CheckHold(f)
	}
	w.Sched.Queue = slices.Insert(w.Sched.Queue, 0, w.Sched.pending...)
	w.Sched.pending = nil
}

// loosen lets a flight's goroutine go back into lock code after its
// command: the flight is over. A call of Env.Fan runs on where the engine
// sees it; any other goroutine is one whoever waits for may have been
// waiting for.
func (s *Sched) loosen(f *model.Actor) {
	s.loosenGoroutine(f)
	if !f.Fan {
		s.wakeLib(f.Client)
	}
}

// loosenGoroutine marks a flight's goroutine as running lock code again.
func (s *Sched) loosenGoroutine(f *model.Actor) {
	if f.Fan {
		f.State = model.StateDone
		s.fanRunning++
		return
	}
	f.State = model.StateLoose
	s.loose = true
}

// wakeLib lets the actors of c that are blocked in lock code run again: a
// goroutine they wait for has gone on.
func (s *Sched) wakeLib(c *model.Client) {
	for _, a := range s.Actors {
		if a.Client == c && a.State == model.StateLib {
			a.State = model.StateRunning
			s.running++
		}
	}
	s.loose = true
}

// Start lets a parked actor go on: it sends its command, passes its program
// point, or returns from its sleep.
func (w *World) Start(a *model.Actor) {
	switch a.Park {
	case model.ParkPoint:
		w.passPoint(a)
	case model.ParkStart, model.ParkNone:
		a.Woke = w.Now
	case model.ParkGate:
		a.InCmd = true
	}
	a.Park, a.Sent = model.ParkNone, false
	a.State = model.StateRunning
	w.Sched.running++
	w.Sched.Watch.Mark(a)
	a.Resume <- nil
}

// enqueue puts a at the back of the line.
func (s *Sched) enqueue(a *model.Actor) {
	if !slices.Contains(s.Queue, a) {
		s.Queue = append(s.Queue, a)
	}
}

// dequeue takes the first runnable actor in line.
func (s *Sched) dequeue() *model.Actor {
	for i, a := range s.Queue {
		if model.Runnable(a) {
			s.Queue = slices.Delete(s.Queue, i, i+1)
			return a
		}
	}
	return nil
}

// handle applies one message from an actor.
func (w *World) handle(m model.Msg) {
	a := m.A
	if a.State == model.StateAbandoned {
		// A stalled actor came back while the shutdown ends the others.
		if m.Kind == model.MsgSpawn {
			m.Child.State = model.StateAbandoned
		}
		model.Closed(m)
		return
	}
	if a.Client != nil {
		a.Client.TakeToken()
	}
	if a.State == model.StateLib {
		// Blocked in lock code by the runtime's account, yet it went on: a
		// goroutine outside the run woke it. It runs again.
		a.State = model.StateRunning
		w.Sched.running++
	}
	if m.Cmd != nil {
		w.seeTokens(a.Client, m.Cmd)
	}
	switch m.Kind {
	case model.MsgGate, model.MsgPoint:
		w.Sched.running--
		a.State = model.StateParked
		if m.Kind == model.MsgGate {
			a.Park, a.Cmd, a.Node, a.Sent = model.ParkGate, m.Cmd, m.Node, m.Sent
		} else {
			a.Park, a.Point = model.ParkPoint, m.Point
		}
		w.CheckHold(a)
		// The actor that just ran goes on first: it runs until it blocks.
		w.Sched.Queue = slices.Insert(w.Sched.Queue, 0, a)
	case model.MsgFlight:
		a.Park, a.Cmd, a.Node, a.Sent = model.ParkGate, m.Cmd, m.Node, m.Sent
		a.ID = a.Parent.ID
		w.Sched.pending = append(w.Sched.pending, a)
		if a.Fan {
			w.Sched.fanRunning--
			break
		}
		w.Sched.flights, w.Sched.loose = true, true
	case model.MsgCmdDone:
		a.InCmd = false
		w.commandDone(a, m)
		switch m.Cmd.Name() {
		case "watch":
			a.Watching, a.WatchedAt = true, w.Now
		case "exec", "unwatch", "discard":
			a.Watching = false
		}
		if a.Orphan {
			// Its goroutine, the gate's, ends.
			w.Sched.running--
			a.State = model.StateDone
		} else if a.Flight {
			// Its goroutine goes back into lock code; whoever waits for
			// its answer may go on.
			w.Sched.running--
			w.Sched.loosen(a)
			// Its client may have reached its hold: the next of its
			// flights in line is where it stops.
			for _, f := range w.Sched.Queue {
				if f.Flight && f.Parent == a.Parent && f.State == model.StateParked {
					w.CheckHold(f)
					break
				}
			}
		}
	case model.MsgSleep:
		w.Sched.running--
		a.State, a.Deadline = model.StateSleeping, m.Deadline
	case model.MsgWait:
		w.Sched.startWait(a, m.Wait)
	case model.MsgSlow:
		w.Sched.running--
		a.State, a.Deadline, a.SentAt = model.StateSleeping, m.Deadline, w.Now
		w.Emit(trace.Event{Kind: trace.KindSchedule, Actor: a.Name, Server: w.Fleet.Servers[m.Server].Name,
			Text:  narrate.SlowSend(a.Name, command.Format(m.Cmd), w.Fleet.Servers[m.Server].Name, m.Deadline-w.Now),
			Short: text.Text{EN: "sent…", ZH: "发出…"}})
	case model.MsgUnsleep:
		// Cancelled in its sleep, or after the clock woke it but before it
		// ran: either way it runs now, and the scheduler waits for it (its
		// canceller goes on at the same time, once it has seen it finish).
		// Once it has been let go, the go-ahead is its answer.
		if a.State == model.StateSleeping || a.State == model.StateParked {
			w.Sched.Queue = slices.DeleteFunc(w.Sched.Queue, func(b *model.Actor) bool { return b == a })
			a.State, a.Park = model.StateRunning, model.ParkNone
			w.Sched.running++
			a.Resume <- nil
		}
	case model.MsgUngate, model.MsgGiveUp:
		w.Sched.ctxEnded(m)
	case model.MsgNote:
		w.noted(a, m.Note)
		w.Sched.Watch.Mark(a)
	case model.MsgSpawn:
		m.Child.ID = len(w.Sched.Actors)
		w.Sched.Actors = append(w.Sched.Actors, m.Child)
		w.Sched.enqueue(m.Child)
	case model.MsgFan:
		w.Sched.running--
		a.State = model.StateFan
		w.Sched.fanRunning += m.N
		a.Resume <- nil // it starts the calls
	case model.MsgFanExit:
		w.Sched.fanRunning--
		if m.Err != nil {
			w.Fail(m.Err)
		}
		if m.Last {
			// Every call returned: the fan's actor goes on.
			a.State = model.StateRunning
			w.Sched.running++
			a.Resume <- nil
		}
	case model.MsgExit:
		if m.Err != nil {
			w.Fail(m.Err)
		}
		if a.State == model.StateRunning {
			w.Sched.running--
		}
		a.State = model.StateDone
		w.Sched.Queue = slices.DeleteFunc(w.Sched.Queue, func(b *model.Actor) bool { return b == a })
		// A watchdog that ends because it found the lock gone closed its
		// lost channel first: that is said, not that it stopped.
		w.checkLost(a.Client)
		w.bgStopped(a)
	}
	w.checkLost(a.Client)
	switch m.Kind {
	case model.MsgCmdDone, model.MsgNote, model.MsgSpawn:
		// The actor waits for this: scheduler and actors take turns, so
		// the scheduler never reads what a running actor writes.
		a.Resume <- nil
	}
}

// WakeDue moves sleepers whose deadline has come into the line, in
// (deadline, creation) order.
func (w *World) WakeDue() {
	var due []*model.Actor
	for _, a := range w.Sched.Actors {
		if a.State == model.StateSleeping && a.Deadline <= w.Now && (model.OnTheWire(a) || !a.Client.Paused && !a.Client.Crashed) {
			due = append(due, a)
		}
	}
	slices.SortStableFunc(due, func(x, y *model.Actor) int {
		if x.Deadline != y.Deadline {
			return int(x.Deadline - y.Deadline)
		}
		return x.ID - y.ID
	})
	for _, a := range due {
		if a.WaitFor != nil {
			w.Sched.finishWait(a, nil) // the WAIT timed out
			continue
		}
		a.State = model.StateParked
		a.Park = model.ParkNone
		w.Sched.enqueue(a)
	}
}

// nextSleeper is the earliest deadline of a sleeper that can wake.
func (s *Sched) nextSleeper() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, a := range s.Actors {
		if a.State != model.StateSleeping || !model.OnTheWire(a) && (a.Client.Paused || a.Client.Crashed) {
			continue
		}
		if !found || a.Deadline < best {
			best, found = a.Deadline, true
		}
	}
	return best, found
}
