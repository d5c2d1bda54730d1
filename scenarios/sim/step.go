package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file runs a world one move at a time, with the choice of every move
// left to the caller: the explorer's search and the sandbox, where the
// student is the scheduler.

// MoveKind says what a move does.
type MoveKind string

// The kinds of move besides the faults' (whose kinds their files give).
const (
	MoveStep MoveKind = "step" // an actor runs to its next stop: one Redis command, or one program point
	MoveTime MoveKind = "time" // time passes to the next deadline
)

// Move is one choice a Stepper offers.
type Move struct {
	Kind MoveKind `json:"kind"`
	// ID names the move stably: "A", "A.watchdog", "time", "crash A",
	// "restart redis-3". A schedule is a list of IDs.
	ID string `json:"id"`
	// Label says what the move will do.
	Label text.Text `json:"label"`
}

// Stepper is a world whose every move is chosen from outside. Each client runs
// its program once (with its attempts); the run is over when no move is left.
type Stepper struct {
	w        *engine.World
	faults   map[trace.Fault]bool
	schedule []string
	// memory is what the faults' moves have left behind, as each fault's
	// record says (faultmemory.go): for each fault, the targets it has
	// struck, each with its time in a memory of times.
	memory map[trace.Fault]map[int]time.Duration
	// lease is, for each client that holds the lock, when its lock key on
	// each server runs out, as last seen: a key that a restart or a
	// failover took away still ends its holder's lease there, for the rule
	// that a live holder finishes within its lease (nextTime).
	lease map[string]map[int]time.Duration
}

// ErrNoSuchMove is returned by Do for a move that is not enabled.
var ErrNoSuchMove = errors.New("no such move")

// NewStepper builds a world for setup with one client per program (named A,
// B, C, …) and the given faults enabled.
func NewStepper(setup model.Setup, progs []model.Program, impl lockimpl.Info, faults []trace.Fault) (*Stepper, error) {
	w, err := engine.New(context.Background(), setup, impl, nil)
	if err != nil {
		return nil, err
	}
	s := &Stepper{w: w, faults: map[trace.Fault]bool{}, memory: map[trace.Fault]map[int]time.Duration{}, lease: map[string]map[int]time.Duration{}}
	for _, f := range faults {
		s.faults[f] = true
	}
	w.Sched.In(func() {
		for i, p := range progs {
			w.AddClient(string(rune('A'+i)), p)
		}
	})
	w.Trace.Scenario = "explore"
	w.Trace.Title = text.Text{EN: "Explored schedule", ZH: "搜索到的调度"}
	w.Record(trace.Event{Kind: trace.KindNarration, Text: stepperOpening(w.Trace.Clients, progs, w.Setup.TTL)})
	return s, nil
}

// stepperOpening is the first narration of an explored schedule: what the
// clients do, and that every move is chosen.
func stepperOpening(clients []string, progs []model.Program, ttl time.Duration) text.Text {
	names := strings.Join(clients, ", ")
	var readers []string
	for i, p := range progs {
		if p.Read {
			readers = append(readers, clients[i])
		}
	}
	t := text.Text{
		EN: fmt.Sprintf("Clients %s each take the lock (TTL %s), work inside it, write and release it.", names, narrate.Secs(ttl)),
		ZH: fmt.Sprintf("客户端 %s 各自加锁（TTL %s），在锁内干活、写入、释放。", names, narrate.SecsZH(ttl)),
	}
	if len(readers) > 0 {
		t = text.Text{
			EN: fmt.Sprintf("Clients %s each take the lock (TTL %s), work inside it and release it; %s only read (a read-write lock's read lock), the others write.", names, narrate.Secs(ttl), narrate.AndList(readers)),
			ZH: fmt.Sprintf("客户端 %s 各自加锁（TTL %s），在锁内干活、释放；%s 只读（读写锁的读锁），其余的写入。", names, narrate.SecsZH(ttl), narrate.AndListZH(readers)),
		}
	}
	t.EN += " Every move — whose command goes next, when time passes, which fault strikes — is chosen one at a time."
	t.ZH += "每一步——谁的命令先发、时间何时流逝、发生哪种故障——都逐一选择。"
	return t
}

// Close stops the world's goroutines and servers.
func (s *Stepper) Close() { s.w.Close() }

// Schedule is the moves done so far, by ID.
func (s *Stepper) Schedule() []string { return slices.Clone(s.schedule) }

// Now is the virtual time.
func (s *Stepper) Now() time.Duration { return s.w.Now }

// Broken lists the invariants broken so far, in invariant order.
// Served says whether the lock has run in this world so far: a Redis
// command of its went through, or a call of it returned without an error.
// A search whose every world is unserved has no verdict (NoVerdict says
// why): a lock that cannot run breaks liveness by not running.
func (s *Stepper) Served() bool {
	w := s.w
	return w.Commands > w.Failed || w.Commands == 0 && w.LockCalls > w.LockErrs
}

// NoVerdict is why this world has no verdict, if it has none (see Served).
func (s *Stepper) NoVerdict() error { return s.w.NoVerdict() }

func (s *Stepper) Broken() []string {
	var ids []string
	for _, v := range s.w.Judge.Verdicts {
		if v.Broken {
			ids = append(ids, v.Invariant)
		}
	}
	return ids
}

// Trace is the run so far.
func (s *Stepper) Trace() *trace.Trace {
	tr := s.w.Trace
	tr.Events = slices.Clone(tr.Events)
	tr.Tokens = slices.Clone(tr.Tokens)
	tr.Verdicts = slices.Clone(s.w.Judge.Verdicts)
	return &tr
}

// Moves lists the enabled moves: each actor that can run, in creation
// order; then time; then faults.
func (s *Stepper) Moves() []Move { return s.moves(true) }

// moves is Moves; without steps, an actor's move has no label (what its
// command is, formatted): Do looks a move up by its id alone.
func (s *Stepper) moves(steps bool) []Move {
	w := s.w
	if w.Err != nil {
		return nil
	}
	var moves []Move
	for _, a := range s.runnable() {
		m := Move{Kind: MoveStep, ID: a.Name}
		if steps {
			m.Label = s.stepLabel(a)
		}
		moves = append(moves, m)
	}
	if next, ok := s.nextTime(len(moves) > 0); ok {
		moves = append(moves, Move{Kind: MoveTime, ID: "time", Label: text.Text{
			EN: "time passes to t=" + narrate.Secs(next), ZH: "时间流逝到第 " + narrate.SecsZH(next)}})
	}
	return append(moves, s.faultMoves()...)
}

// runnable lists the actors that can run now, in creation order.
func (s *Stepper) runnable() []*model.Actor {
	var out []*model.Actor
	for _, a := range s.w.Sched.Actors {
		if slices.Contains(s.w.Sched.Queue, a) && model.Runnable(a) {
			out = append(out, a)
		}
	}
	return out
}

// stepLabel says what actor a does when it runs.
func (s *Stepper) stepLabel(a *model.Actor) text.Text {
	switch a.Park {
	case model.ParkGate:
		cmd := command.Format(a.Cmd)
		return text.Text{EN: a.Name + ": " + cmd, ZH: a.Name + "：" + cmd}
	case model.ParkPoint:
		res := s.w.Res.Name
		if a.Point == trace.OpWrite {
			return text.Text{EN: a.Name + " writes " + res, ZH: a.Name + " 写入 " + res}
		}
		return text.Text{EN: a.Name + " reads " + res, ZH: a.Name + " 读取 " + res}
	case model.ParkStart:
		return text.Text{EN: a.Name + " starts", ZH: a.Name + " 开始"}
	}
	return text.Text{EN: a.Name + " goes on", ZH: a.Name + " 继续"}
}

// nextTime is the next deadline time may pass to, if it may. With clients
// able to move, it may only under the expiry fault. Either way it may not
// run out the lease of a holder that is live: a client in its critical
// section finishes within its lease (the TTL covers the work) unless a fault
// — a pause, or a hung call with no watchdog left to renew the lease —
// stops it.
func (s *Stepper) nextTime(clientsCanMove bool) (time.Duration, bool) {
	w := s.w
	if clientsCanMove && !s.faults[FaultExpiry] {
		return 0, false
	}
	next, ok := w.NextDeadline()
	if !ok && w.Sched.Bub != nil && w.Sched.LibBlocked() != nil {
		// Nothing of the engine's is due, and lock code waits: for a timer
		// of its own, maybe. Time may pass to the horizon, and stops where
		// that lock code wakes.
		next, ok = w.Setup.Horizon, true
	}
	// A time a fault keeps (the delayed restart's comeback) stops time.
	if due, held := s.nextDue(); held && (!ok || due < next) {
		next, ok = due, true
	}
	if !ok || next > w.Setup.Horizon {
		return 0, false
	}
	if d, on := w.Judge.Due(); on && next >= d && clientsCanMove {
		// A waiter that is merely slow is not kept out by the lock: the
		// liveness bound runs out only while no client can move.
		return 0, false
	}
	for _, c := range w.Clients {
		if c.Belief != trace.BeliefHolds || c.Paused || c.Crashed || c.Hung && !s.renews(c) {
			continue
		}
		for _, end := range s.lease[c.Name] {
			if end > w.Now && end <= next {
				return 0, false
			}
		}
	}
	return next, true
}

// noteLeases records, after a move, when each holder's lock key on each
// server runs out; a holder's entries for keys that are gone stay, and a
// client that no longer holds the lock has none.
func (s *Stepper) noteLeases() {
	w := s.w
	for _, c := range w.Clients {
		if c.Belief != trace.BeliefHolds {
			delete(s.lease, c.Name)
		}
	}
	for i, srv := range w.Fleet.Servers {
		if !srv.Up {
			continue
		}
		for _, k := range srv.Keys {
			if k.Key != w.Setup.Key || k.TTL <= 0 {
				continue
			}
			for _, c := range w.Clients {
				if c.Name == k.Writer && c.Belief == trace.BeliefHolds {
					if s.lease[c.Name] == nil {
						s.lease[c.Name] = map[int]time.Duration{}
					}
					s.lease[c.Name][i] = w.Now + k.TTL
				}
			}
		}
	}
}

// renews says whether a goroutine of c's other than its business one — a
// watchdog — is still at work: a hung call does not stop it, so the lease
// it renews does not run out while it runs. A client cut off from a server
// renews nothing there.
func (s *Stepper) renews(c *model.Client) bool {
	if len(c.Cut) > 0 {
		// Cut off from a server: its renewals there do not arrive.
		return false
	}
	for _, a := range s.w.Sched.Actors {
		if a.Client == c && a.Bg && !a.Flight && a.State != model.StateDone && a.State != model.StateAbandoned {
			return true
		}
	}
	return false
}

// Do makes move id. It returns ErrNoSuchMove when the move is not enabled.
// An ID by a move's old name (FaultInfo.OldMoves) makes the move of that
// name now, and the schedule has it by the name now.
func (s *Stepper) Do(id string) error {
	var err error
	s.w.Sched.In(func() { err = s.do(id) })
	if s.w.Sched.Watch.Wedged != nil {
		return s.w.Sched.Watch.Wedged
	}
	return err
}

// DoAll makes the moves ids in order, as Do would one at a time, and stops
// at the first error. It hands them to the world's scheduler goroutine all
// at once: a search's replay of a schedule does not pay a round trip for
// every move.
func (s *Stepper) DoAll(ids []string) error {
	var err error
	s.w.Sched.In(func() {
		for _, id := range ids {
			if err = s.do(id); err != nil {
				return
			}
		}
	})
	if s.w.Sched.Watch.Wedged != nil {
		return s.w.Sched.Watch.Wedged
	}
	return err
}

func (s *Stepper) do(id string) error {
	id = moveNow(id)
	var m Move
	found := false
	moves := s.moves(false)
	for _, mv := range moves {
		if mv.ID == id {
			m, found = mv, true
			break
		}
	}
	if !found {
		ids := make([]string, len(moves))
		for i, mv := range moves {
			ids[i] = mv.ID
		}
		return fmt.Errorf("%w: %q (the moves now: %s)", ErrNoSuchMove, id, strings.Join(ids, ", "))
	}
	w := s.w
	switch m.Kind {
	case MoveStep:
		for _, a := range w.Sched.Actors {
			if a.Name == id {
				s.run(a)
				break
			}
		}
	case MoveTime:
		next, _ := s.nextTime(len(s.runnable()) > 0)
		before := len(w.Trace.Events)
		// Lock code that a timer of its own wakes on the way stops time
		// there, and runs until it blocks again.
		w.PassTo(next)
		w.Drain()
		if s.stuckAt(next) {
			return w.Err
		}
		// What a fault keeps a time for comes now (a delayed restart's
		// server back).
		s.comeDue()
		w.WakeDue()
		s.tick()
		s.noteLeases()
		if len(w.Trace.Events) == before {
			// Nothing expired or replicated: the trace still says so, with
			// the world as it is now (TTLs run down), so that its last
			// event is never behind the clock.
			w.Record(trace.Event{Kind: trace.KindNarration, Text: text.Text{
				EN: "Time passes to t=" + narrate.Secs(w.Now) + ".",
				ZH: "时间流逝到第 " + narrate.SecsZH(w.Now) + "。",
			}})
		}
		s.schedule = append(s.schedule, id)
		return w.Err
	default:
		s.doFault(m)
	}
	s.tick()
	s.noteLeases()
	s.schedule = append(s.schedule, id)
	if w.Err != nil {
		return w.Err
	}
	return nil
}

// tick handles what is due after a move, as the world's tick does, but
// judges the liveness bound only once nothing can move at this instant: the
// moves of one instant are the work due at it (a retry that woke, the
// command it sends), and a waiter whose retry is due when the bound runs out
// — a crashed holder's lease expiring then too — gets its chance before it
// is judged, as in a scripted run, which judges after the instant settles.
// Time cannot pass the bound while a client can move (nextTime), so the
// bound is judged at its instant or not at all.
func (s *Stepper) tick() {
	w := s.w
	w.Fleet.ApplyReplication()
	w.Sched.CheckWaits()
	if len(s.runnable()) == 0 {
		w.Observe(invariant.Observation{Kind: invariant.Instant})
	}
}

// stuckAt fails the run, as a lesson's run fails, when time passed to
// next, the horizon, for lock code blocked with nothing of the engine's
// due, and no timer of the lock's woke it on the way: that call is
// blocked for good (a Release waiting on a channel nobody closes), and a
// search must not count what follows as a verdict.
func (s *Stepper) stuckAt(next time.Duration) bool {
	w := s.w
	if w.Sched.Bub == nil || next < w.Setup.Horizon || len(w.Sched.Inbox) > 0 || len(s.runnable()) > 0 {
		return false
	}
	if _, due := w.NextDeadline(); due {
		return false
	}
	a := w.Sched.LibBlocked()
	if a == nil {
		return false
	}
	w.Stuck(a)
	return true
}

// run lets actor a go to its next stop. A read of the resource right after
// the acquire is part of the same move (nothing can usefully happen between
// them), and so is the first run of any goroutine it started (a watchdog):
// a go statement's goroutine is under way before anyone can stop it.
func (s *Stepper) run(a *model.Actor) {
	w := s.w
	for w.Err == nil {
		w.Sched.Queue = slices.DeleteFunc(w.Sched.Queue, func(b *model.Actor) bool { return b == a })
		w.Start(a)
		w.Drain()
		if !(a.Park == model.ParkPoint && a.Point == trace.OpRead && model.Runnable(a)) {
			break
		}
	}
	s.startChildren()
}

// startChildren runs the goroutines a step started to their first stop.
func (s *Stepper) startChildren() {
	w := s.w
	for w.Err == nil {
		i := slices.IndexFunc(w.Sched.Queue, func(a *model.Actor) bool { return a.Bg && a.Park == model.ParkStart && model.Runnable(a) })
		if i < 0 {
			return
		}
		a := w.Sched.Queue[i]
		w.Sched.Queue = slices.Delete(w.Sched.Queue, i, i+1)
		w.Start(a)
		w.Drain()
	}
}

// node is the logical node whose server a move's id names last
// ("restart redis-2"). Moves() offers only moves on a node's server, so
// there is one.
func (s *Stepper) node(id string) int {
	name := id[strings.LastIndexByte(id, ' ')+1:]
	return slices.IndexFunc(s.w.Fleet.Route, func(srv int) bool { return s.w.Fleet.Servers[srv].Name == name })
}

func (s *Stepper) client(id string) *Client {
	name := id[strings.LastIndexByte(id, ' ')+1:]
	for _, c := range s.w.Clients {
		if c.Name == name {
			return &Client{w: s.w, c: c}
		}
	}
	return nil
}
