package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// This file is a real run's clock as the world reads it (real time, scaled:
// backend.RealRun): the lock's time and virtual time, the world's clock
// catching up with the wall clock, and the run's error when it was
// interrupted. The Target and the RealRun are package backend's; the
// servers themselves are Backends from Target.NewBackend (package
// realserver).

// Wall is the run's relation to the wall clock: on real servers, the
// run's time is the wall clock's, scaled (real; nil on embedded servers);
// a live run waits for its presenter before each command (pacer, nil but
// in the TUI's live mode), and holds the run's time still meanwhile
// (pace.go).
type Wall struct {
	W     *World
	Real  *backend.RealRun
	Pacer *backend.Pacer
}

// toVirtual converts a duration of the lock's time into virtual time.
func (c *Wall) toVirtual(d time.Duration) time.Duration {
	if c.Real == nil {
		return d
	}
	return c.Real.ToVirtual(d)
}

// ttlTolerance is how far apart two readings of a TTL may be and still be
// the same lease. On embedded servers readings are exact. On real ones a
// reading is off by up to a round trip to the server, which grows under
// load; a tenth of the lease is well above that and well below what a
// renewal adds (a third of the lease and more).
func (c *Wall) ttlTolerance() time.Duration {
	if c.Real == nil {
		return 0
	}
	return max(c.toVirtual(3*time.Millisecond), c.W.Setup.TTL/10)
}

// toReal converts virtual time into the lock's time, in whole milliseconds
// (the resolution of PX).
func (c *Wall) toReal(d time.Duration) time.Duration {
	if c.Real == nil {
		return d
	}
	return c.Real.ToReal(d)
}

// catchUp moves the world's clock to the wall clock's virtual time, to the
// tenth of a second, after a command that blocked on a real server.
func (c *Wall) catchUp() {
	t := c.toVirtual(time.Since(c.Real.Start())).Round(100 * time.Millisecond)
	if t > c.W.Now {
		c.W.advance(t)
	}
}

// waitUntil sleeps on the wall clock until virtual time t has come, plus a
// millisecond so that a key due at t has expired.
func (c *Wall) waitUntil(t time.Duration) {
	r := c.Real
	deadline := r.WallAt(t).Add(time.Millisecond)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-r.Ctx.Done():
		c.W.Fail(r.Ctx.Err())
	}
}

// RunErr is err, unless the run was interrupted: then the interruption is
// what the caller reports.
func (c *Wall) RunErr(err error) error {
	if c.Real != nil && c.Real.Ctx.Err() != nil {
		return c.Real.Ctx.Err()
	}
	return err
}
