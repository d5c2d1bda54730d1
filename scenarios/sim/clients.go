package sim

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file makes a client process: its go-redis clients, its lock handle
// (newLock, with the implementation's Maker), its business goroutine and the
// actors that run it, and the tokens Env.Token mints for it.

// addClient creates a client process with its go-redis clients, its lock
// handle and its business goroutine, which starts at p.Start.
func (w *world) addClient(name string, p model.Program) *model.Client {
	c := &model.Client{Name: name, Prog: p.WithDefaults(), Belief: trace.BeliefIdle, Op: trace.OpStart}
	if p.Jitter {
		c.Jitter = model.JitterSource(name)
	}
	c.Conn = make([]atomic.Int32, len(w.fleet.route))
	for i := range w.fleet.route {
		c.Rdb = append(c.Rdb, w.newRedisClient(c, i))
		c.Conn[i].Store(int32(w.fleet.route[i]))
	}
	ttl := w.setup.TTL
	if p.Lease > 0 {
		ttl = p.Lease
	}
	c.Key = w.clientKey(p)
	c.Lock = w.newLock(lockimpl.Env{
		Nodes:    c.Rdb,
		Key:      c.Key,
		TTL:      w.wall.toReal(ttl),
		Lease:    w.wall.toReal(p.Lease),
		Clock:    vclock{w},
		Token:    c.Minted.Next(c.Name),
		Go:       w.act.spawn,
		Fan:      w.act.fan,
		Replicas: w.fleet.replicas(),
	})
	w.clients = append(w.clients, c)
	w.trace.Clients = append(w.trace.Clients, name)

	a := w.newActor(c, name, false)
	c.Biz = a
	a.ID = len(w.sched.actors)
	w.sched.actors = append(w.sched.actors, a)
	ctx := model.WithActor(context.Background(), a)
	go w.act.runActor(a, func() { w.act.runProgram(ctx, a) })
	if p.Start > w.now {
		a.State, a.Deadline = model.StateSleeping, p.Start
	} else {
		w.sched.enqueue(a)
	}
	return c
}

// replicas is how many replicas a single-instance lock's server has.
func (f *fleet) replicas() int {
	if len(f.route) == 1 && f.servers[f.route[0]].Replica >= 0 {
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
func (s *actorSide) runActor(a *model.Actor, fn func()) {
	s.w.sched.goroutines.Label(a)
	var crash error
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Errorf("%s: the lock implementation %s panicked: %v", a.Name, s.w.impl.Name, r)
			}
		}()
		if err := a.Wait(); err == nil {
			fn()
		}
	}()
	s.send(model.Msg{A: a, Kind: model.MsgExit, Err: crash})
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
		w.sched.watch.Last.Store(&name)
		w.sched.watch.LastA.Store(nil)
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
	timer := time.NewTimer(w.sched.watch.Bound)
	defer timer.Stop()
	var m made
	select {
	case m = <-ch:
	case <-timer.C:
		m.err = fmt.Errorf("the lock implementation %s: New did not return within %s", w.impl.Name, w.sched.watch.Bound)
	}
	if m.err != nil {
		w.fail(m.err)
		return model.BrokenLock{Err: m.err}
	}
	return m.l
}

func (w *world) newActor(c *model.Client, name string, bg bool) *model.Actor {
	return &model.Actor{Name: name, Client: c, Bg: bg, Resume: make(chan error, 1),
		State: model.StateParked, Park: model.ParkStart}
}
