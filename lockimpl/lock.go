// Package lockimpl is the catalogue of Redis lock implementations that
// lockstep runs: from a bare SETNX up to watchdog renewal, Redlock and fencing
// tokens. Each implementation is ordinary go-redis code that works unchanged
// against a production Redis; it knows nothing of the simulator. The simulator
// reaches it only through Env: the clients it is given, the clock, the token
// source and the way to start a background goroutine.
//
// Adding an implementation, as the README's "Adding an implementation" says:
//
//  1. Write one file with a type that satisfies Lock and a doc comment that
//     says what it fixes and what it still misses.
//  2. Add its Info to the catalogue in registry.go, in its place from the
//     most naive to the most careful (or one line naming an Info its file
//     declares).
//  3. Run go generate ./... in the module's root: it runs the lock through
//     every lesson, writes its row into each lesson's expect block, and
//     regenerates the files that follow (docs/, the README's matrix and
//     tables, docs/explore.md's table, docs/lessons.md's example).
//  4. Review the diff: the new expect rows are the verdicts the lessons hold
//     the lock to from now on; explain in docs/explore.md any cell where the
//     search disagrees with a lesson, as go test names it.
package lockimpl

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lock is one client's handle on one named lock.
type Lock interface {
	// TryAcquire makes one attempt. It returns false when someone else holds
	// the lock. It may return true with an error when the lock was taken but
	// a follow-up step failed: the caller holds the lock and must release it.
	TryAcquire(ctx context.Context) (bool, error)
	// Release gives the lock back. It returns ErrNotHeld when the lock was
	// found to belong to someone else (or to nobody) and was left alone.
	Release(ctx context.Context) error
}

// A Lock that holds something outside the run — a process, a port (a lock
// in another language, package external) — may also implement io.Closer:
// the run calls Close as it ends, after the client's last call.

// Fencer is implemented by locks that hand out a fencing token: a number that
// grows with every successful acquire, for the protected resource to check.
type Fencer interface {
	// Fence is the token of the current hold, 0 when nothing is held.
	Fence() int64
}

// Watcher is implemented by locks with a watchdog that can tell when a
// renewal found the lock gone.
type Watcher interface {
	// Lost is closed when the watchdog found that the lock no longer holds
	// this client's token.
	Lost() <-chan struct{}
}

// ValidityReporter is implemented by locks that know how long a hold is
// good for: Redlock's validity, the lease less the time the acquire took
// and an allowance for clock drift. The simulator narrates it after an
// acquire on several nodes.
type ValidityReporter interface {
	// Validity is what the last acquire attempt computed, counted from its
	// end; 0 or less when it left no time (whether or not the lock then
	// reported success). The simulator reads it after an attempt that got a
	// majority.
	Validity() time.Duration
}

// Clock is a lock's clock, for a lock that wants to say so: the simulator
// gives it the run's virtual time, and against a real server it is the wall
// clock. In the simulator time.Now, time.Sleep, timers, tickers and context
// deadlines are on the same virtual time (each embedded run is a
// testing/synctest bubble), so lock code may use either.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done, whichever comes first; it
	// returns ctx.Err() in the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// Env is everything a lock implementation gets from its surroundings. It is
// the contract between lockstep and a lock written outside this repository
// (see the locktest package and examples/mylock): a lock that keeps to it
// runs unchanged in the simulator and against a production Redis.
type Env struct {
	// Nodes are the Redis servers: one for single-instance locks, N
	// independent ones for Redlock. Use them as any go-redis client, from
	// any goroutine; in the simulator every command waits at a gate until
	// the scheduler lets it go, so each is a step of the lesson. A
	// transaction (Watch, TxPipelined: MULTI … EXEC) is one step, at EXEC,
	// where Redis applies it; a WATCH and the reads before it are steps of
	// their own. A pipeline (Pipelined) is a step per command: the server
	// runs them one after another, and another client's command may come
	// between; a pause or crash of the client after the first does not
	// stop the rest, which are on the wire. A command's context is
	// honoured as go-redis honours it with ContextTimeoutEnabled (set that
	// option on production clients if a lock bounds its commands with
	// context.WithTimeout): a deadline that passes while the command waits
	// at the gate fails it unsent; one that passes while it is on its way
	// to a slow server ends the client's wait, and the command still
	// reaches the server and runs there. A process the lesson stops
	// (paused, held) sees a deadline that passed meanwhile when it goes on.
	Nodes []*redis.Client
	// Key is the lock's key, for example "lock:product:1001". A lock may
	// keep more keys under "Key:" or starting with the hash tag "{Key}" (a
	// fencing counter). The server refuses any other key, and any command
	// locks do not use (FLUSHALL, KEYS, SELECT, CONFIG …), with NOPERM, inside
	// a Lua script too, and the run fails as the lock's: an embedded server
	// by itself, a real one because the lock runs as an ACL user made for
	// the run. On a real server Key carries the run's prefix, so a lock
	// touches nothing of the server's own.
	Key string
	// TTL is the lease: how long the lock lives without renewal.
	TTL time.Duration
	// Lease is the lease the caller passed explicitly, as Redisson's
	// lock(leaseTime) does; 0 when it passed none. TTL is that lease then.
	// A lock that follows Redisson's rule does not renew a lease its caller
	// chose (redisson); the others just use TTL.
	Lease time.Duration
	// Clock is the run's time: Now and a Sleep that ends early when ctx is
	// done. Lock code may use it, or time.Now, time.Sleep, time.Ticker and
	// context.WithTimeout directly: in the simulator, on embedded servers,
	// all of them are the run's virtual time, which moves only as the
	// lesson moves it; against a real server they are the wall clock.
	// There, Clock runs at the run's pace (a virtual second lasts
	// Target.Second), and the time package at the wall clock's own.
	Clock Clock
	// Token returns a new owner token, unique among all clients. A real
	// deployment uses a UUID; the simulator hands out readable ones (A#1).
	// Call it from one goroutine at a time (draw the token before asking
	// the nodes at once).
	Token func() string
	// Go starts fn in a new goroutine (a watchdog, say). name says what the
	// goroutine is for. When nil, a plain go statement is used. In the
	// simulator such a goroutine is an actor of its own ("A.watchdog"),
	// started and paused with its client. Goroutines the lock starts with a
	// plain go statement work as well (a watchdog on a time.Ticker, a
	// library asking its nodes at once): each command they send is
	// scheduled as a move of its own, named after the client and the node
	// ("A/redis-3"), whatever context it carries.
	Go func(ctx context.Context, name string, fn func(ctx context.Context))
	// Fan runs f(ctx, i) for every i in [0, n), each in a goroutine of its
	// own, all at once, and returns when every call has returned: a lock
	// that asks its nodes at once (Redlock). When nil, goroutines and a
	// sync.WaitGroup are used. In the simulator each command a call sends
	// is a move of its own, named after the client and the node
	// ("A/redis-3"), and the scheduler decides in which order the nodes
	// answer. A call may send Redis commands; it must not use Clock or Go,
	// nor start goroutines of its own.
	// A plain go statement and a WaitGroup work the same way in the
	// simulator; Fan only says so in one word.
	Fan func(ctx context.Context, n int, f func(ctx context.Context, i int))
	// Name is the client's name (A, B …) where the caller has one: a lock
	// that must tell its clients apart without drawing a Token may use it
	// (a lock in another language seeds its random numbers with it, so
	// that clients differ and runs do not). Empty against a production
	// Redis unless the caller sets it.
	Name string
	// Replicas is how many replicas the deployment gives Nodes[0]: what a
	// lock that waits for replica acknowledgement (WAIT) waits for. It is
	// configuration, as a client library is told its topology.
	Replicas int
}

// Maker builds a lock handle for one client.
type Maker func(Env) Lock

// ErrNotHeld is returned by Release when the lock was no longer this
// client's and was therefore left alone.
var ErrNotHeld = errors.New("lock not held")

// WallClock is the real clock, for runs against real servers.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fan is Env.Fan, or goroutines and a WaitGroup when it is nil.
func (e Env) fan(ctx context.Context, n int, f func(ctx context.Context, i int)) {
	if e.Fan != nil {
		e.Fan(ctx, n, f)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(ctx, i) })
	}
	wg.Wait()
}

func (e Env) goroutine(ctx context.Context, name string, fn func(context.Context)) {
	if e.Go != nil {
		e.Go(ctx, name, fn)
		return
	}
	go fn(ctx)
}

// owner keeps the token of one client's current or next hold: drawn on the
// first attempt, kept across failed attempts, dropped on release.
type owner struct {
	env   Env
	token string
}

func (o *owner) current() string {
	if o.token == "" {
		o.token = o.env.Token()
	}
	return o.token
}

func (o *owner) drop() { o.token = "" }

// held returns the token of the current hold, if an acquire drew one.
func (o *owner) held() (string, bool) { return o.token, o.token != "" }
