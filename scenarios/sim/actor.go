package sim

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// An actor is one goroutine the scheduler controls: a client's business
// goroutine or a background goroutine it started (a watchdog). Only one actor
// runs at a time; the others are parked at a gate (before a Redis command), at
// a program point (before touching the resource), or in a clock sleep.
type actor struct {
	id     int // creation order: ties are broken by it
	name   string
	client *client
	bg     bool // a background goroutine (watchdog), not the business one

	// A flight is one command sent from a goroutine the lock code started
	// itself, not through Env.Go (a library that asks its nodes at once).
	// It is scheduled like an actor of its own, named after the client and
	// the node ("A/redis-3"), from the moment it reaches the gate until its
	// reply; then its goroutine is back in lock code the engine cannot see.
	flight bool
	fan    bool // a flight of a call of Env.Fan: the engine knows its goroutine
	parent *actor
	inCmd  bool // let go from the gate: its reply is on its way
	// sent: the command parked at the gate is a pipeline's, after its
	// first: on the wire already, so its client's pause, crash, hang or
	// hold does not keep it back.
	sent bool
	// orphan: a command whose client stopped waiting for it while it was
	// on its way to a slow server (a context deadline). It still reaches
	// the server and runs there; nothing of its client's holds it back,
	// and nobody reads its reply.
	orphan bool
	sentAt time.Duration // when its command left for a slow server
	gaveUp time.Duration // orphan: when its client stopped waiting

	resume chan error // scheduler → actor: go on (nil) or stop (error)

	state    actorState
	park     parkKind
	cmd      redis.Cmder // the command waiting at the gate
	node     int         // the logical node it is for
	point    trace.Op    // the program point waiting
	deadline time.Duration
	woke     time.Duration // when it last started or left a sleep

	op   trace.Op // what the business goroutine is doing now
	hold *hold
	held bool // frozen by a hold until Unhold

	// A WAIT the engine answers (embedded servers): what it waits for, and
	// the reply once it is done.
	waitFor   *waitCmd
	waitReply int64
	waitErr   error
}

type actorState int

const (
	stateParked   actorState = iota // parked; may be runnable
	stateRunning                    // executing code
	stateSleeping                   // in a clock sleep
	stateDone                       // goroutine finished
	// abandoned: still running when the run shut down (it stalled). The
	// scheduler no longer waits for it; whatever it sends is answered with
	// redis.ErrClosed, so it ends once the lock code it is stuck in returns.
	stateAbandoned
	// blocked in lock code: waiting for goroutines the lock started itself,
	// whose commands are parked at the gate (see goroutines.go).
	stateLib
	// a flight after its reply: its goroutine runs lock code again.
	stateLoose
	// blocked in Env.Fan until every call it started has returned.
	stateFan
)

// errCancelled answers a command whose context ended while it was parked at
// the gate and before the scheduler let it go: it is never sent.
var errCancelled = errors.New("lockstep: cancelled at the gate")

// errGaveUp answers a command whose context ended while it was on its way
// to a slow server, before it arrived: its client goes on without a reply,
// and the command goes on to the server as an orphan.
var errGaveUp = errors.New("lockstep: gave up waiting for a slow server")

type parkKind int

const (
	parkNone parkKind = iota
	parkGate
	parkPoint
	parkStart
)

type actorKey struct{}

func withActor(ctx context.Context, a *actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

func actorFrom(ctx context.Context) *actor {
	a, _ := ctx.Value(actorKey{}).(*actor)
	return a
}

// msg is what an actor tells the scheduler. Every actor-to-scheduler message
// goes through one unbuffered channel, so the scheduler sees them in the order
// they happened.
type msg struct {
	a    *actor
	kind msgKind

	cmd    redis.Cmder
	node   int
	server int
	err    error

	point    trace.Op
	deadline time.Duration
	note     note
	child    *actor
	wait     *waitCmd
	n        int  // msgFan: how many calls
	last     bool // msgFanExit: the fan's last call returned
	sent     bool // msgGate, msgFlight: a pipeline's command on the wire
}

type msgKind int

const (
	msgGate    msgKind = iota // parked before a command; waits
	msgCmdDone                // a command finished
	msgPoint                  // parked at a program point; waits
	msgSleep                  // parked in a clock sleep; waits
	msgUnsleep                // a sleep ended early: its context is done
	msgNote                   // the program reports what it believes
	msgSpawn                  // a new actor exists and waits to start
	msgExit                   // the goroutine finished
	msgWait                   // blocked in a WAIT the engine answers; waits
	msgUngate                 // a command parked at the gate was cancelled
	msgFlight                 // a goroutine the lock started parked before a command; waits
	msgSlow                   // a command on its way to a slow server; waits until it arrives
	msgGiveUp                 // a command on its way to a slow server whose context ended; child carries it on
	msgFan                    // about to start an Env.Fan's calls; waits, then waits again until they return
	msgFanExit                // a call of an Env.Fan returned (sent by its goroutine, on the fan's actor's behalf)
)

// actorSide is the world as the actors' goroutines reach it: lock code and
// a client's program run there, and reach the scheduler only by messages
// (send), each answered before they go on. What runs on the scheduler's
// side is world's. closing says the run is closing (an actor's next call
// meets redis.ErrClosed); done is closed once its shutdown has ended and
// no scheduler reads any more.
type actorSide struct {
	w       *world
	closing atomic.Bool
	done    chan struct{}
}

// send hands m to the scheduler. Once the run has shut down no scheduler
// reads: a goroutine that stalled and came back is answered redis.ErrClosed
// in its place, so it ends instead of blocking here forever.
func (s *actorSide) send(m msg) {
	select {
	case s.w.sched.ch <- m:
	case <-s.done:
		closed(m)
	}
}

// closed answers m for a goroutine the scheduler no longer runs: the sender,
// and a child it spawns, go on with redis.ErrClosed. Every message but
// msgExit is followed by a wait; resume has room for one answer, and the
// actor has taken the last one before it sent.
func closed(m msg) {
	stop := func(a *actor) {
		select {
		case a.resume <- redis.ErrClosed:
		default:
		}
	}
	switch m.kind {
	case msgExit:
	case msgFanExit:
		// The fan's actor waits for its last call.
		if m.last {
			stop(m.a)
		}
	default:
		stop(m.a)
	}
	if m.kind == msgSpawn {
		stop(m.child)
	}
}

// wait blocks until the scheduler resumes the actor.
func (a *actor) wait() error { return <-a.resume }
