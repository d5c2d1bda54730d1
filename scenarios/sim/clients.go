package sim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file makes a client process: its go-redis clients, its lock handle
// (newLock, with the implementation's Maker), its business goroutine and the
// actors that run it, and the tokens Env.Token mints for it.

// addClient creates a client process with its go-redis clients, its lock
// handle and its business goroutine, which starts at p.Start.
func (w *world) addClient(name string, p Program) *client {
	c := &client{name: name, prog: p.withDefaults(), belief: trace.BeliefIdle, op: trace.OpStart}
	if p.Jitter {
		c.jitter = jitterSource(name)
	}
	c.conn = make([]atomic.Int32, len(w.fleet.route))
	for i := range w.fleet.route {
		c.rdb = append(c.rdb, w.newRedisClient(c, i))
		c.conn[i].Store(int32(w.fleet.route[i]))
	}
	ttl := w.setup.TTL
	if p.Lease > 0 {
		ttl = p.Lease
	}
	c.key = w.clientKey(p)
	c.lock = w.newLock(lockimpl.Env{
		Nodes:    c.rdb,
		Key:      c.key,
		TTL:      w.wall.toReal(ttl),
		Lease:    w.wall.toReal(p.Lease),
		Clock:    vclock{w},
		Token:    c.minted.next(c.name),
		Go:       w.act.spawn,
		Fan:      w.act.fan,
		Replicas: w.fleet.replicas(),
	})
	w.clients = append(w.clients, c)
	w.trace.Clients = append(w.trace.Clients, name)

	a := w.newActor(c, name, false)
	c.biz = a
	a.id = len(w.sched.actors)
	w.sched.actors = append(w.sched.actors, a)
	ctx := withActor(context.Background(), a)
	go w.act.runActor(a, func() { w.act.runProgram(ctx, a) })
	if p.Start > w.now {
		a.state, a.deadline = stateSleeping, p.Start
	} else {
		w.sched.enqueue(a)
	}
	return c
}

// replicas is how many replicas a single-instance lock's server has.
func (f *fleet) replicas() int {
	if len(f.route) == 1 && f.servers[f.route[0]].replica >= 0 {
		return 1
	}
	return 0
}

// runActor is the body of an actor's goroutine: it waits for its turn, runs
// fn, and reports its exit. A panic in fn (lock code that panics) ends the
// goroutine and fails the run with the panic, naming the actor, instead of
// taking the whole process down; the panic of a goroutine the lock started
// on its own, not through Env.Go, cannot be caught this way. The gate knows
// an actor's own commands by this function's frame at the bottom of the
// stack (goroutineRoot).
//
//go:noinline
func (s *actorSide) runActor(a *actor, fn func()) {
	s.w.sched.goroutines.label(a)
	var crash error
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Errorf("%s: the lock implementation %s panicked: %v", a.name, s.w.impl.Name, r)
			}
		}()
		if err := a.wait(); err == nil {
			fn()
		}
	}()
	s.send(msg{a: a, kind: msgExit, err: crash})
}

// newLock makes a client's lock handle with the implementation's Maker. A
// Maker that panics, returns nil or does not return within the stall
// timeout fails the run, and the client gets a handle whose every call
// returns that error.
func (w *world) newLock(env lockimpl.Env) lockimpl.Lock {
	type made struct {
		l   lockimpl.Lock
		err error
	}
	ch := make(chan made, 1)
	if w.sched.bub != nil {
		name := "the lock implementation " + w.impl.Name + "'s New"
		w.sched.watch.last.Store(&name)
		w.sched.watch.lastA.Store(nil)
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- made{err: fmt.Errorf("the lock implementation %s panicked in New: %v", w.impl.Name, r)}
			}
		}()
		l := w.impl.New(env)
		if l == nil {
			ch <- made{err: fmt.Errorf("the lock implementation %s: New returned no lock", w.impl.Name)}
			return
		}
		ch <- made{l: l}
	}()
	timer := time.NewTimer(w.sched.watch.bound)
	defer timer.Stop()
	var m made
	select {
	case m = <-ch:
	case <-timer.C:
		m.err = fmt.Errorf("the lock implementation %s: New did not return within %s", w.impl.Name, w.sched.watch.bound)
	}
	if m.err != nil {
		w.fail(m.err)
		return brokenLock{m.err}
	}
	return m.l
}

// brokenLock stands for a lock whose Maker failed.
type brokenLock struct{ err error }

func (b brokenLock) TryAcquire(context.Context) (bool, error) { return false, b.err }
func (b brokenLock) Release(context.Context) error            { return b.err }

func (w *world) newActor(c *client, name string, bg bool) *actor {
	return &actor{name: name, client: c, bg: bg, resume: make(chan error, 1),
		state: stateParked, park: parkStart}
}

// minted is Env.Token's side of a client's tokens: lock code calls it on
// goroutines of its own, the scheduler reads it in takeToken.
type minted struct {
	mu    sync.Mutex
	token string
	count int
}

// next is Env.Token for the client named name: name#1, name#2, ….
func (m *minted) next(name string) func() string {
	return func() string {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.count++
		m.token = fmt.Sprintf("%s#%d", name, m.count)
		return m.token
	}
}

// takeToken brings the scheduler's copy of c's token up to date. The
// scheduler calls it for each message of c's goroutines, so what a trace
// shows does not depend on when lock code ran between two messages.
func (c *client) takeToken() {
	c.minted.mu.Lock()
	c.token, c.count = c.minted.token, c.minted.count
	c.minted.mu.Unlock()
}
