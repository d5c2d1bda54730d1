package external

import (
	"context"
)

// This file is the watchdog of a lock whose adapter has renew(): while the
// client holds the lock, lockstep calls it every TTL/3, as lockimpl's
// watchdog renews a Go lock's lease (看门狗续期), up to Env.MaxRenewals
// renewals. A renewal that finds the lock no longer the client's ("not-held")
// closes Lost and ends the watchdog.
//
// The watchdog is lockstep's, not the library's: a library's own timers run
// only while a call of it runs (docs/external.md), so a lock renews between
// calls only where its adapter says how (a library's extend(), its
// refreshTimeout()), and lockstep calls that as an application would.

// watchdog is one hold's renewing goroutine.
type watchdog struct {
	cancel context.CancelFunc
	done   chan struct{}
	lost   chan struct{}
}

// watch starts the watchdog of the hold just taken, if the lock renews.
func (l *Lock) watch(ctx context.Context) {
	if !l.renews {
		return
	}
	// The watchdog outlives the acquire call: it keeps the context's values,
	// not its cancellation.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &watchdog{cancel: cancel, done: make(chan struct{}), lost: make(chan struct{})}
	l.dog = w
	l.env.Go(ctx, "watchdog", func(ctx context.Context) {
		defer close(w.done)
		l.renewEvery(ctx, w)
	})
}

// renewEvery renews every TTL/3 until ctx ends, the cap is reached, or a
// renewal finds the lock gone. A renewal under way when ctx ends runs to
// its end: the agent is in the middle of it.
func (l *Lock) renewEvery(ctx context.Context, w *watchdog) {
	every := l.env.TTL / 3
	for renewed := 0; l.env.MaxRenewals <= 0 || renewed < l.env.MaxRenewals; {
		if l.env.Clock.Sleep(ctx, every) != nil {
			return
		}
		r, err := l.call(context.WithoutCancel(ctx), "renew")
		switch {
		case err != nil:
			// The agent is gone: every call says so from now on.
			return
		case r.Result == "not-held":
			close(w.lost)
			return
		case r.Result == "renewed":
			renewed++
		}
		// An error of the lock's (the connection dropped, say) is retried at
		// the next tick; the lease may still be there.
	}
}

// unwatch stops the watchdog, after the renewal under way if one is, and
// waits for it to end.
func (l *Lock) unwatch() {
	if l.dog == nil {
		return
	}
	l.dog.cancel()
	<-l.dog.done
}

// Lost is closed when the watchdog found that the lock was no longer the
// client's (lockimpl.Watcher); nil while the lock has no watchdog.
func (l *Lock) Lost() <-chan struct{} {
	if l.dog == nil {
		return nil
	}
	return l.dog.lost
}
