package engine

import (
	"context"
	"fmt"

	"github.com/lockstep-sim/lockstep/internal/prestack"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// A fan is lockimpl.Env.Fan in the simulator: lock code that asks its nodes
// at once through Env.Fan (lockimpl's Redlock) runs each call in a goroutine
// the engine knows of (a call must not start goroutines of its own). Each
// command such a call sends is a flight, a move of its own ("A/redis-3"), as
// a command from a goroutine the lock started with a plain go statement is;
// but the engine knows when each call starts, sends and returns, so it never
// asks the runtime whether the run is quiet (see goroutines.go): a fan costs
// what the same commands cost one after another.

// fan runs f(ctx, i) for every i in [0, n), each in a goroutine of its own,
// and returns once all have returned. The calling actor is blocked in the
// fan (StateFan) meanwhile; the calls run lock code until they reach the gate
// or return, and the flights they park at the gate take their place in line
// once none of them runs (place).
func (s *ActorSide) fan(ctx context.Context, n int, f func(ctx context.Context, i int)) {
	parent := model.ActorFrom(ctx)
	if parent == nil || n <= 0 {
		model.PlainFan(ctx, n, f)
		return
	}
	run := &model.FanRun{Parent: parent}
	run.Live.Store(int32(n))
	s.Send(model.Msg{A: parent, Kind: model.MsgFan, N: n})
	if err := parent.Wait(); err != nil {
		// The run has shut down: the calls' commands get redis.ErrClosed.
		model.PlainFan(ctx, n, f)
		return
	}
	for i := range n {
		go s.fanCall(run, ctx, i, f)
	}
	_ = parent.Wait() // resumed once every call has returned
}

// fanCall is the body of a fan's call's goroutine. The gate knows the call's
// commands by it: its frame is at the bottom of the goroutine's stack
// (goroutineRoot), whatever context the call sends them with.
//
//go:noinline
func (s *ActorSide) fanCall(run *model.FanRun, ctx context.Context, i int, f func(ctx context.Context, i int)) {
	prestack.Grow()
	var crash error
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Errorf("%s: the lock implementation %s panicked in a call of Env.Fan: %v", run.Parent.Name, s.W.Impl.Name, r)
			}
		}()
		f(ctx, i)
	}()
	s.Send(model.Msg{A: run.Parent, Kind: model.MsgFanExit, Err: crash, Last: run.Live.Add(-1) == 0})
}
