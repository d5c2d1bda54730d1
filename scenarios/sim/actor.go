package sim

import (
	"context"
	"time"

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

	resume chan error // scheduler → actor: go on (nil) or stop (error)

	state    actorState
	park     parkKind
	cmd      redis.Cmder // the command waiting at the gate
	node     int         // the logical node it is for
	point    Op          // the program point waiting
	deadline time.Duration
	woke     time.Duration // when it last started or left a sleep

	op   Op // what the business goroutine is doing now
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
)

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

	point    Op
	deadline time.Duration
	note     note
	child    *actor
	wait     *waitCmd
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
)

// send hands m to the scheduler.
func (w *World) send(m msg) { w.ch <- m }

// wait blocks until the scheduler resumes the actor.
func (a *actor) wait() error { return <-a.resume }
