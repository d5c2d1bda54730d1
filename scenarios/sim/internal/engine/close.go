package engine

import (
	"errors"
	"io"
	"sync"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/redis/go-redis/v9"
)

// This file closes a world: shutdown stops every actor and waits for its
// goroutines to finish, the clients' connections close, a real run's
// Sentinels stop and its keys are removed, and the servers go back to the
// pool.

// Close stops every goroutine and server of the run, and ends its bubble.
// On real servers it deletes the run's keys and points the replica back at
// its primary.
func (w *World) Close() {
	if w.closed {
		return
	}
	w.closed = true
	if w.Sched.Watch.Wedged != nil {
		// The stalled call may still come back: the run is closed then.
		// What a lock holds outside the run goes now: an agent that never
		// answers keeps its call from coming back until it is killed.
		w.closeLocks()
		go func() {
			<-w.Sched.Watch.WedgedDone
			w.Sched.Bub.Do(w.Stop)
			w.Fleet.CloseServers(w.Sched.Bub.Close(model.CloseLimit) == nil)
		}()
		return
	}
	w.Sched.In(w.Stop)
	clean := true
	if w.Sched.Bub != nil {
		// Goroutines left blocked for good (lock code that never returned)
		// are the lock's to answer for, and the run has said so.
		clean = w.Sched.Bub.Close(model.CloseLimit) == nil
	}
	w.Fleet.CloseServers(clean)
}

// Stop is Close on the scheduler's goroutine.
func (w *World) Stop() {
	err := w.Err
	w.shutdown()
	w.closeLocks()
	for _, c := range w.Clients {
		for _, rc := range c.Rdb {
			_ = rc.Close()
		}
	}
	if w.Wall.Real != nil {
		err = errors.Join(err, w.closeReal())
	}
	w.Err = err
	w.settleTimers()
}

// closeLocks closes each client's lock that holds something outside the
// run (an agent's process: lockimpl's io.Closer). A lock may be closed twice.
func (w *World) closeLocks() {
	for _, c := range w.Clients {
		if cl, ok := c.Lock.(io.Closer); ok {
			_ = cl.Close()
		}
	}
}

// shutdown stops every actor: parked ones are resumed with redis.ErrClosed,
// and so is everything they do afterwards, until all goroutines have
// finished. A stalled actor, stuck in lock code outside the gate and the
// clock, cannot be stopped: it was abandoned when it stalled (before or
// during the shutdown), and is told redis.ErrClosed whenever it comes back,
// so its goroutine ends as soon as that code returns.
func (w *World) shutdown() {
	w.Act.closing.Store(true)
	w.Err = nil
	for {
		// Whoever runs (a run that failed mid-command) goes on until it
		// parks, finishes or stalls; then the next parked one is stopped.
		w.Drain()
		w.Err = nil // a stall on the way out: that actor is abandoned
		var next *model.Actor
		for _, a := range w.Sched.Actors {
			if a.State == model.StateParked || a.State == model.StateSleeping {
				next = a
				break
			}
		}
		if next == nil {
			break
		}
		next.State = model.StateRunning
		w.Sched.running++
		if next.Orphan {
			// It never arrives; its goroutine ends.
			w.Sched.running--
			next.State = model.StateDone
		} else if next.Flight {
			// Its goroutine goes back into lock code with the error, and
			// whoever waits for it goes on.
			w.Sched.running--
			w.Sched.loosen(next)
		}
		next.Resume <- redis.ErrClosed
	}
	// From now on no one reads ch (see send). A world may be closed twice.
	select {
	case <-w.Act.Done:
	default:
		close(w.Act.Done)
	}
}

// closeReal has every server remove the run's keys, all at once; each
// bounds its own cleanup (see backend.Backend.Cleanup). What they could not do is
// in the error, server by server.
func (w *World) closeReal() error {
	var sentinelErr error
	if w.Fleet.Sentinel != nil {
		// Before the replica is pointed back at the primary: a Sentinel
		// that still watched would take it for a misconfigured master.
		sentinelErr = w.Fleet.Sentinel.Close()
	}
	errs := make([]error, len(w.Fleet.Servers), len(w.Fleet.Servers)+1)
	var wg sync.WaitGroup
	for i, srv := range w.Fleet.Servers {
		wg.Go(func() { errs[i] = srv.B.Cleanup(srv.Keys) })
	}
	wg.Wait()
	return errors.Join(append(errs, sentinelErr)...)
}
