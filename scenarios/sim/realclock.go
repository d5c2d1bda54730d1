package sim

import "time"

// This file is a real run's clock as the world reads it (real time, scaled:
// backend.RealRun): the lock's time and virtual time, the world's clock
// catching up with the wall clock, and the run's error when it was
// interrupted. The Target and the RealRun are package backend's; the
// servers themselves are Backends from Target.NewBackend (package
// realserver).

// toVirtual converts a duration of the lock's time into virtual time.
func (w *World) toVirtual(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return w.real.ToVirtual(d)
}

// ttlTolerance is how far apart two readings of a TTL may be and still be
// the same lease. On embedded servers readings are exact. On real ones a
// reading is off by up to a round trip to the server, which grows under
// load; a tenth of the lease is well above that and well below what a
// renewal adds (a third of the lease and more).
func (w *World) ttlTolerance() time.Duration {
	if w.real == nil {
		return 0
	}
	return max(w.toVirtual(3*time.Millisecond), w.setup.TTL/10)
}

// toReal converts virtual time into the lock's time, in whole milliseconds
// (the resolution of PX).
func (w *World) toReal(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return w.real.ToReal(d)
}

// catchUp moves the world's clock to the wall clock's virtual time, to the
// tenth of a second, after a command that blocked on a real server.
func (w *World) catchUp() {
	t := w.toVirtual(time.Since(w.real.Start())).Round(100 * time.Millisecond)
	if t > w.now {
		w.advance(t)
	}
}

// waitUntil sleeps on the wall clock until virtual time t has come, plus a
// millisecond so that a key due at t has expired.
func (w *World) waitUntil(t time.Duration) {
	r := w.real
	deadline := r.WallAt(t).Add(time.Millisecond)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-r.Ctx.Done():
		w.fail(r.Ctx.Err())
	}
}

// runErr is err, unless the run was interrupted: then the interruption is
// what the caller reports.
func (w *World) runErr(err error) error {
	if w.real != nil && w.real.Ctx.Err() != nil {
		return w.real.Ctx.Err()
	}
	return err
}
