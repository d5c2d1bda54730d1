package engine

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// This file paces a run (backend.Pacer, on the run's context): before
// each command the world waits for the presenter's go-ahead, and a real
// run's time stands still meanwhile (backend.TimeHolder).

// pace waits for the pacer's go-ahead before actor a's command goes, and
// holds the run's time still for as long as it waited.
func (c *Wall) pace(a *model.Actor) {
	p := c.Pacer
	if p == nil || p.Next == nil || a.Park != model.ParkGate || a.Cmd == nil {
		return
	}
	ctx := c.W.Ctx
	if c.Real != nil {
		ctx = c.Real.Ctx
	}
	began := time.Now()
	var thaws []func() error
	defer func() {
		for _, thaw := range thaws {
			if err := thaw(); err != nil && c.W.Err == nil {
				c.W.Fail(fmt.Errorf("starting the run's time again: %w", err))
			}
		}
		if c.Real != nil && !c.Real.Start().IsZero() {
			c.Real.SetStart(c.Real.Start().Add(time.Since(began)))
		}
	}()
	if c.Real != nil && !c.Real.Start().IsZero() {
		for _, srv := range c.W.Fleet.Servers {
			h, ok := srv.B.(backend.TimeHolder)
			if !ok || !srv.Up || srv.Primary >= 0 {
				continue // a replica follows its primary
			}
			thaw, err := h.Freeze()
			if err != nil {
				c.W.Fail(fmt.Errorf("holding the run's time still on %s: %w", srv.Name, err))
				return
			}
			thaws = append(thaws, thaw)
		}
	}
	var err error
	c.paced(func() { err = p.Next(ctx, a.Name, command.Format(a.Cmd)) })
	if err != nil {
		c.W.Fail(err)
	}
}

// paced calls into the pacer. Time there is the presenter's, not a stall
// (sched.in); coming back counts as progress, so the run has a whole stall
// timeout after a long wait to reach its next message.
func (c *Wall) paced(call func()) {
	c.W.Sched.Watch.Pacing.Add(1)
	defer func() {
		c.W.Sched.Watch.Pacing.Add(-1)
		c.W.Sched.Watch.Progress.Add(1)
	}()
	call()
}
