package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/internal/prestack"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file makes a client process: its go-redis clients, its lock handle
// (newLock, with the implementation's Maker), its business goroutine and the
// actors that run it, and the tokens Env.Token mints for it.

// AddClient creates a client process with its go-redis clients, its lock
// handle and its business goroutine, which starts at p.Start.
func (w *World) AddClient(name string, p model.Program) *model.Client {
	c := &model.Client{Name: name, Prog: p.WithDefaults(), Belief: trace.BeliefIdle, Op: trace.OpStart}
	if p.Jitter {
		c.Jitter = model.JitterSource(name)
	}
	c.Conn = make([]atomic.Int32, len(w.Fleet.Route))
	for i := range w.Fleet.Route {
		c.Rdb = append(c.Rdb, w.newRedisClient(c, i))
		c.Conn[i].Store(int32(w.Fleet.Route[i]))
	}
	ttl := w.Setup.TTL
	if p.Lease > 0 {
		ttl = p.Lease
	}
	c.Key = w.clientKey(p)
	c.Lock = w.newLock(lockimpl.Env{
		Nodes:    c.Rdb,
		Key:      c.Key,
		TTL:      w.Wall.toReal(ttl),
		Lease:    w.Wall.toReal(p.Lease),
		Clock:    vclock{w},
		Token:    c.Minted.Next(c.Name),
		Name:     c.Name,
		Go:       w.Act.spawn,
		Fan:      w.Act.fan,
		Replicas: w.Fleet.Replicas(),
	})
	if rw, ok := c.Lock.(lockimpl.ReadWriter); ok && p.Read {
		c.Lock, c.Shares = rw.ReadLock(), true
	}
	w.Clients = append(w.Clients, c)
	w.Trace.Clients = append(w.Trace.Clients, name)

	a := w.newActor(c, name, false)
	c.Biz = a
	a.ID = len(w.Sched.Actors)
	w.Sched.Actors = append(w.Sched.Actors, a)
	ctx := model.WithActor(context.Background(), a)
	go w.Act.runActor(a, func() { w.Act.runProgram(ctx, a) })
	if p.Start > w.Now {
		a.State, a.Deadline = model.StateSleeping, p.Start
	} else {
		w.Sched.enqueue(a)
	}
	return c
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
func (s *ActorSide) runActor(a *model.Actor, fn func()) {
	prestack.Grow()
	s.W.Sched.Goroutines.Label(a)
	var crash error
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Errorf("%s: the lock implementation %s panicked: %v", a.Name, s.W.Impl.Name, r)
			}
		}()
		if err := a.Wait(); err == nil {
			fn()
		}
	}()
	s.Send(model.Msg{A: a, Kind: model.MsgExit, Err: crash})
}

// newLock makes a client's lock handle with the implementation's Maker. A
// Maker that panics, returns nil or does not return within the stall
// timeout fails the run, and the client gets a handle whose every call
// returns that error.
func (w *World) newLock(env lockimpl.Env) lockimpl.Lock {
	type made struct {
		l   lockimpl.Lock
		err error
	}
	ch := make(chan made, 1)
	if w.Sched.Bub != nil {
		name := "the lock implementation " + w.Impl.Name + "'s New"
		w.Sched.Watch.Last.Store(&name)
		w.Sched.Watch.LastA.Store(nil)
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- made{err: fmt.Errorf("the lock implementation %s panicked in New: %v", w.Impl.Name, r)}
			}
		}()
		l := w.Impl.New(env)
		if l == nil {
			ch <- made{err: fmt.Errorf("the lock implementation %s: New returned no lock", w.Impl.Name)}
			return
		}
		ch <- made{l: l}
	}()
	timer := time.NewTimer(w.Sched.Watch.Bound)
	defer timer.Stop()
	var m made
	select {
	case m = <-ch:
	case <-timer.C:
		m.err = fmt.Errorf("the lock implementation %s: New did not return within %s", w.Impl.Name, w.Sched.Watch.Bound)
	}
	if m.err != nil {
		w.Fail(m.err)
		return model.BrokenLock{Err: m.err}
	}
	return m.l
}

func (w *World) newActor(c *model.Client, name string, bg bool) *model.Actor {
	return &model.Actor{Name: name, Client: c, Bg: bg, Resume: make(chan error, 1),
		State: model.StateParked, Park: model.ParkStart}
}
