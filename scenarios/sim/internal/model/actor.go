package model

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/redis/go-redis/v9"
)

// An actor is one goroutine the scheduler controls: a client's business
// goroutine or a background goroutine it started (a watchdog). Only one actor
// runs at a time; the others are parked at a gate (before a Redis command), at
// a program point (before touching the resource), or in a clock sleep.
type Actor struct {
	ID     int // creation order: ties are broken by it
	Name   string
	Client *Client
	Bg     bool // a background goroutine (watchdog), not the business one

	// A flight is one command sent from a goroutine the lock code started
	// itself, not through Env.Go (a library that asks its nodes at once).
	// It is scheduled like an actor of its own, named after the client and
	// the node ("A/redis-3"), from the moment it reaches the gate until its
	// reply; then its goroutine is back in lock code the engine cannot see.
	Flight bool
	Fan    bool // a flight of a call of Env.Fan: the engine knows its goroutine
	Parent *Actor
	InCmd  bool // let go from the gate: its reply is on its way
	// Sent: the command parked at the gate is a pipeline's, after its
	// first: on the wire already, so its client's pause, crash, hang or
	// hold does not keep it back.
	Sent bool
	// Orphan: a command whose client stopped waiting for it while it was
	// on its way to a slow server (a context deadline). It still reaches
	// the server and runs there; nothing of its client's holds it back,
	// and nobody reads its reply.
	Orphan bool
	SentAt time.Duration // when its command left for a slow server
	GaveUp time.Duration // orphan: when its client stopped waiting

	Resume chan error // scheduler → actor: go on (nil) or stop (error)

	State    actorState
	Park     parkKind
	Cmd      redis.Cmder // the command waiting at the gate
	Node     int         // the logical node it is for
	Point    trace.Op    // the program point waiting
	Deadline time.Duration
	Woke     time.Duration // when it last started or left a sleep
	// Watching: its WATCH is on, since WatchedAt, until its EXEC, UNWATCH
	// or DISCARD. The server remembers whether a watched key changed since
	// (a write, an expiry), and EXEC fails if one did: the state shows
	// that only as when the WATCH was.
	Watching  bool
	WatchedAt time.Duration

	Op   trace.Op // what the business goroutine is doing now
	Hold *Hold
	Held bool // frozen by a hold until Unhold

	// A WAIT the engine answers (embedded servers): what it waits for, and
	// the reply once it is done.
	WaitFor   *WaitCmd
	WaitReply int64
	WaitErr   error
}

type actorState int

const (
	StateParked   actorState = iota // parked; may be runnable
	StateRunning                    // executing code
	StateSleeping                   // in a clock sleep
	StateDone                       // goroutine finished
	// abandoned: still running when the run shut down (it stalled). The
	// scheduler no longer waits for it; whatever it sends is answered with
	// redis.ErrClosed, so it ends once the lock code it is stuck in returns.
	StateAbandoned
	// blocked in lock code: waiting for goroutines the lock started itself,
	// whose commands are parked at the gate (see goroutines.go).
	StateLib
	// a flight after its reply: its goroutine runs lock code again.
	StateLoose
	// blocked in Env.Fan until every call it started has returned.
	StateFan
)

// ErrCancelled answers a command whose context ended while it was parked at
// the gate and before the scheduler let it go: it is never sent.
var ErrCancelled = errors.New("lockstep: cancelled at the gate")

// ErrGaveUp answers a command whose context ended while it was on its way
// to a slow server, before it arrived: its client goes on without a reply,
// and the command goes on to the server as an orphan.
var ErrGaveUp = errors.New("lockstep: gave up waiting for a slow server")

type parkKind int

const (
	ParkNone parkKind = iota
	ParkGate
	ParkPoint
	ParkStart
)

type actorKey struct{}

func WithActor(ctx context.Context, a *Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

func ActorFrom(ctx context.Context) *Actor {
	a, _ := ctx.Value(actorKey{}).(*Actor)
	return a
}

// Msg is what an actor tells the scheduler. Every actor-to-scheduler message
// goes through one unbuffered channel, so the scheduler sees them in the order
// they happened.
type Msg struct {
	A    *Actor
	Kind msgKind

	Cmd    redis.Cmder
	Node   int
	Server int
	Err    error

	Point    trace.Op
	Deadline time.Duration
	Note     Note
	Child    *Actor
	Wait     *WaitCmd
	N        int  // MsgFan: how many calls
	Last     bool // MsgFanExit: the fan's last call returned
	Sent     bool // MsgGate, MsgFlight: a pipeline's command on the wire
}

type msgKind int

const (
	MsgGate    msgKind = iota // parked before a command; waits
	MsgCmdDone                // a command finished
	MsgPoint                  // parked at a program point; waits
	MsgSleep                  // parked in a clock sleep; waits
	MsgUnsleep                // a sleep ended early: its context is done
	MsgNote                   // the program reports what it believes
	MsgSpawn                  // a new actor exists and waits to start
	MsgExit                   // the goroutine finished
	MsgWait                   // blocked in a WAIT the engine answers; waits
	MsgUngate                 // a command parked at the gate was cancelled
	MsgFlight                 // a goroutine the lock started parked before a command; waits
	MsgSlow                   // a command on its way to a slow server; waits until it arrives
	MsgGiveUp                 // a command on its way to a slow server whose context ended; child carries it on
	MsgFan                    // about to start an Env.Fan's calls; waits, then waits again until they return
	MsgFanExit                // a call of an Env.Fan returned (sent by its goroutine, on the fan's actor's behalf)
)

// Closed answers m for a goroutine the scheduler no longer runs: the sender,
// and a child it spawns, go on with redis.ErrClosed. Every message but
// MsgExit is followed by a wait; resume has room for one answer, and the
// actor has taken the last one before it sent.
func Closed(m Msg) {
	stop := func(a *Actor) {
		select {
		case a.Resume <- redis.ErrClosed:
		default:
		}
	}
	switch m.Kind {
	case MsgExit:
	case MsgFanExit:
		// The fan's actor waits for its last call.
		if m.Last {
			stop(m.A)
		}
	default:
		stop(m.A)
	}
	if m.Kind == MsgSpawn {
		stop(m.Child)
	}
}

// Wait blocks until the scheduler resumes the actor.
func (a *Actor) Wait() error { return <-a.Resume }

// RootKind is what a goroutine of the run is, by the function at the bottom
// of its stack.
type RootKind int

const (
	RootOther RootKind = iota // started by lock code with a go statement
	RootActor                 // an actor's own (runActor)
	RootFan                   // a call of Env.Fan (fanCall)
)

// Runnable says whether a parked actor may move now. A hung client's call
// holds up its business goroutine only: every goroutine its lock started —
// Env.Go's, a go statement's, a time.AfterFunc's — runs on, as a watchdog
// does in a live process whose business thread is stuck.
func Runnable(a *Actor) bool {
	if a.Sent {
		// A pipeline's command already on the wire: nothing of its
		// client's keeps it back.
		return a.State == StateParked
	}
	c := a.Client
	held := a.Held || a.Flight && a.Parent.Held
	return a.State == StateParked && !held && !c.Paused && !c.Crashed && !(c.Hung && a == c.Biz)
}

// OnTheWire says whether a is a command that goes on whatever its client
// does: an orphan reaches its server even if the client pauses or crashes.
func OnTheWire(a *Actor) bool { return a.Orphan }

// FanRun is one Env.Fan call: live counts its calls that have not returned.
type FanRun struct {
	Parent *Actor
	Live   atomic.Int32
}

// PlainFan is Env.Fan outside the simulator's control: goroutines and a
// WaitGroup.
func PlainFan(ctx context.Context, n int, f func(ctx context.Context, i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(ctx, i) })
	}
	wg.Wait()
}

// HolderOf is the actor whose hold counts a's commands: its own, or for a
// flight the actor that started it.
func HolderOf(a *Actor) *Actor {
	if a.Flight {
		return a.Parent
	}
	return a
}

// Hold is where the scenario wants a client stopped: at a program point, or
// at its first stop after it has sent `after` commands in stage op.
type Hold struct {
	At    trace.Op
	Op    trace.Op
	After int
	Count int
}

// DiffKeys lists what one command changed, in key order. TTLs that differ by
// no more than tol count as unchanged (real servers' clocks run on while a
// snapshot is read).
func DiffKeys(before, after []trace.KeyState, tol time.Duration) []narrate.Change {
	var out []narrate.Change
	for _, b := range before {
		a, ok := FindKey(after, b.Key)
		switch {
		case !ok:
			out = append(out, narrate.Change{Key: b.Key, Kind: narrate.ChangeDeleted, Before: b})
		case a.Value != b.Value || a.Type != b.Type:
			out = append(out, narrate.Change{Key: b.Key, Kind: narrate.ChangeValue, Before: b, After: a})
		case a.TTL != b.TTL && (a.TTL < 0 || b.TTL < 0 || a.TTL-b.TTL > tol || b.TTL-a.TTL > tol):
			// A lease that moves later (or stops expiring) is extended; one
			// that starts expiring or gets shorter is merely set.
			kind := narrate.ChangeTTLSet
			if b.TTL > 0 && (a.TTL > b.TTL || a.TTL < 0) {
				kind = narrate.ChangeExtended
			}
			out = append(out, narrate.Change{Key: b.Key, Kind: kind, Before: b, After: a})
		}
	}
	for _, a := range after {
		if _, ok := FindKey(before, a.Key); !ok {
			out = append(out, narrate.Change{Key: a.Key, Kind: narrate.ChangeCreated, After: a})
		}
	}
	slices.SortStableFunc(out, func(x, y narrate.Change) int {
		switch {
		case x.Key < y.Key:
			return -1
		case x.Key > y.Key:
			return 1
		}
		return 0
	})
	return out
}
