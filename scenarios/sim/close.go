package sim

import (
	"errors"
	"sync"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"

	"github.com/redis/go-redis/v9"
)

// This file closes a world: shutdown stops every actor and waits for its
// goroutines to finish, the clients' connections close, a real run's
// Sentinels stop and its keys are removed, and the servers go back to the
// pool.

// close stops every goroutine and server of the run, and ends its bubble.
// On real servers it deletes the run's keys and points the replica back at
// its primary.
func (w *world) close() {
	if w.closed {
		return
	}
	w.closed = true
	if w.sched.watch.Wedged != nil {
		// The stalled call may still come back: the run is closed then.
		go func() {
			<-w.sched.watch.WedgedDone
			w.sched.bub.Do(w.stop)
			w.fleet.closeServers(w.sched.bub.Close(model.CloseLimit) == nil)
		}()
		return
	}
	w.sched.in(w.stop)
	clean := true
	if w.sched.bub != nil {
		// Goroutines left blocked for good (lock code that never returned)
		// are the lock's to answer for, and the run has said so.
		clean = w.sched.bub.Close(model.CloseLimit) == nil
	}
	w.fleet.closeServers(clean)
}

// closeServers closes the run's servers once every goroutine of the run
// has ended: an embedded server goes back to the pool for another world
// (another bubble) only then. After a run that left goroutines behind, an
// embedded server is dropped untouched: its connections may still be
// theirs.
func (f *fleet) closeServers(clean bool) {
	for _, srv := range f.servers {
		if _, embedded := srv.B.(*backend.Embedded); embedded && !clean {
			continue
		}
		srv.B.Close()
	}
}

// stop is close on the scheduler's goroutine.
func (w *world) stop() {
	err := w.err
	w.shutdown()
	for _, c := range w.clients {
		for _, rc := range c.Rdb {
			_ = rc.Close()
		}
	}
	if w.wall.real != nil {
		err = errors.Join(err, w.closeReal())
	}
	w.err = err
	w.settleTimers()
}

// shutdown stops every actor: parked ones are resumed with redis.ErrClosed,
// and so is everything they do afterwards, until all goroutines have
// finished. A stalled actor, stuck in lock code outside the gate and the
// clock, cannot be stopped: it was abandoned when it stalled (before or
// during the shutdown), and is told redis.ErrClosed whenever it comes back,
// so its goroutine ends as soon as that code returns.
func (w *world) shutdown() {
	w.act.closing.Store(true)
	w.err = nil
	for {
		// Whoever runs (a run that failed mid-command) goes on until it
		// parks, finishes or stalls; then the next parked one is stopped.
		w.drain()
		w.err = nil // a stall on the way out: that actor is abandoned
		var next *model.Actor
		for _, a := range w.sched.actors {
			if a.State == model.StateParked || a.State == model.StateSleeping {
				next = a
				break
			}
		}
		if next == nil {
			break
		}
		next.State = model.StateRunning
		w.sched.running++
		if next.Orphan {
			// It never arrives; its goroutine ends.
			w.sched.running--
			next.State = model.StateDone
		} else if next.Flight {
			// Its goroutine goes back into lock code with the error, and
			// whoever waits for it goes on.
			w.sched.running--
			w.sched.loosen(next)
		}
		next.Resume <- redis.ErrClosed
	}
	// From now on no one reads ch (see send). A world may be closed twice.
	select {
	case <-w.act.done:
	default:
		close(w.act.done)
	}
}

// closeReal has every server remove the run's keys, all at once; each
// bounds its own cleanup (see backend.Backend.Cleanup). What they could not do is
// in the error, server by server.
func (w *world) closeReal() error {
	var sentinelErr error
	if w.fleet.sentinel != nil {
		// Before the replica is pointed back at the primary: a Sentinel
		// that still watched would take it for a misconfigured master.
		sentinelErr = w.fleet.sentinel.Close()
	}
	errs := make([]error, len(w.fleet.servers), len(w.fleet.servers)+1)
	var wg sync.WaitGroup
	for i, srv := range w.fleet.servers {
		wg.Go(func() { errs[i] = srv.B.Cleanup(srv.Keys) })
	}
	wg.Wait()
	return errors.Join(append(errs, sentinelErr)...)
}
