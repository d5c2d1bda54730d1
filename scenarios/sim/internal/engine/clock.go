package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/redis/go-redis/v9"
)

// vclock is the clock lock code sees through lockimpl.Env.Clock. Lock code
// works in its own units: on embedded servers those are virtual time; on real
// servers, real time, one virtual second lasting backend.Target.Second.
type vclock struct{ w *World }

// Now is the virtual time, or the wall clock against real servers. A lock
// marked ClockFree (lockimpl.Info) that reads it breaks its word: the
// explorer leaves out of a state what only a clock reading remembers. The
// panic fails the run, naming the actor, as lock code that panics does.
func (c vclock) Now() time.Time {
	if c.w.Impl.ClockFree {
		panic(fmt.Sprintf("%s is marked ClockFree (lockimpl.Info) but read the clock (Env.Clock.Now)", c.w.Impl.Name))
	}
	if c.w.Wall.Real != nil {
		return time.Now()
	}
	return model.Epoch.Add(c.w.Now)
}

// Sleep parks the calling actor for d of the lock's time.
func (c vclock) Sleep(ctx context.Context, d time.Duration) error {
	return c.w.Act.sleep(ctx, c.w.Wall.toVirtual(d))
}

// sleep parks the calling actor until the scheduler's clock reaches now+d
// (virtual), or until ctx is done.
func (s *ActorSide) sleep(ctx context.Context, d time.Duration) error {
	a := model.ActorFrom(ctx)
	if a == nil {
		panic("lockstep: virtual Sleep outside a simulated goroutine")
	}
	if s.closing.Load() {
		return redis.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.Send(model.Msg{A: a, Kind: model.MsgSleep, Deadline: s.W.Now + max(d, 0)})
	select {
	case err := <-a.Resume:
		return err
	case <-ctx.Done():
		s.Send(model.Msg{A: a, Kind: model.MsgUnsleep})
		_ = a.Wait()
		return ctx.Err()
	}
}

// spawn is lockimpl.Env.Go in the simulator: the new goroutine becomes an
// actor of the same client, named after its purpose ("A.watchdog"), and waits
// for the scheduler before it runs.
func (s *ActorSide) spawn(ctx context.Context, name string, fn func(context.Context)) {
	parent := model.ActorFrom(ctx)
	if parent == nil {
		panic("lockstep: Env.Go outside a simulated goroutine")
	}
	c := parent.Client
	child := s.W.newActor(c, c.Name+"."+name, true)
	ctx = model.WithActor(ctx, child)
	c.Spawned.Add(1)
	go s.runActor(child, func() { fn(ctx) })
	s.Send(model.Msg{A: parent, Kind: model.MsgSpawn, Child: child})
	_ = parent.Wait()
}
