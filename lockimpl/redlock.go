package lockimpl

import (
	"context"
	"errors"
	"time"
)

// RedlockNodes is how many independent Redis servers Redlock uses.
const RedlockNodes = 5

// Redlock takes the lock on a majority of N independent Redis servers (no
// replication between them): SET key token NX PX ttl on each in turn, and the
// lock is held when at least N/2+1 said OK and time is left — validity =
// TTL − time spent acquiring − clock drift. Otherwise it runs the
// compare-and-delete script on every node that may have set the key (it said
// OK, or its reply was lost); on release, on every node.
//
// Fixes: losing one server (a crash, a failover) no longer loses the lock; the
// majority still has it.
//
// Misses: a paused client still wakes up believing in a lock that expired
// (Redlock has no fencing token). A node that restarts without persistence,
// or whose clock jumps, can hand a second client a majority. It does not
// renew the lease.
type Redlock struct {
	env      Env
	own      owner
	validity time.Duration
}

// NewRedlock returns a Redlock lock over env.Nodes.
func NewRedlock(env Env) Lock { return &Redlock{env: env, own: owner{env: env}} }

// TryAcquire tries every node once, in order.
func (l *Redlock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	start := l.env.Clock.Now()
	got := 0
	var errs []error
	// touched are the nodes that may hold our key now: those that said OK,
	// and those whose reply was lost (an error). A node that answered nil
	// already had a key — possibly ours from an earlier hold — and is left
	// alone.
	var touched []int
	for i, c := range l.env.Nodes {
		// A node that is down or refuses counts as a "no"; the majority
		// decides.
		ok, err := c.SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
		switch {
		case err != nil:
			errs = append(errs, err)
			touched = append(touched, i)
		case ok:
			got++
			touched = append(touched, i)
		}
	}
	elapsed := l.env.Clock.Now().Sub(start)
	drift := l.env.TTL/100 + 2*time.Millisecond
	l.validity = l.env.TTL - elapsed - drift
	if got >= len(l.env.Nodes)/2+1 && l.validity > 0 {
		return true, nil
	}
	// Undo the partial acquire.
	for _, i := range touched {
		_ = releaseOn(ctx, l.env, i, token)
	}
	l.validity = 0
	if len(errs) == len(l.env.Nodes) {
		// Not "someone else holds it": no server answered at all.
		return false, errors.Join(errs...)
	}
	return false, nil
}

// Release runs the compare-and-delete script on every node.
func (l *Redlock) Release(ctx context.Context) error {
	token, ok := l.own.held()
	if !ok {
		return ErrNotHeld
	}
	l.validity = 0
	err := l.unlockAll(ctx, token)
	if err == nil || errors.Is(err, ErrNotHeld) {
		l.own.drop()
	}
	return err
}

// Validity is how long the current hold is good for, counted from the end of
// the acquire.
func (l *Redlock) Validity() time.Duration { return l.validity }

func (l *Redlock) unlockAll(ctx context.Context, token string) error {
	released, failed := 0, 0
	var errs []error
	for i := range l.env.Nodes {
		switch err := releaseOn(ctx, l.env, i, token); {
		case err == nil:
			released++
		case errors.Is(err, ErrNotHeld):
		default:
			failed++
			errs = append(errs, err)
		}
	}
	switch {
	case failed == len(l.env.Nodes):
		return errors.Join(errs...)
	case released == 0:
		return ErrNotHeld
	}
	return nil
}
