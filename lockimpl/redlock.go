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
// TTL − time spent acquiring − clock drift. Otherwise, and on release, it
// runs the compare-and-delete script on every node.
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
	for _, c := range l.env.Nodes {
		// A node that is down or refuses counts as a "no"; the majority
		// decides.
		if ok, err := c.SetNX(ctx, l.env.Key, token, l.env.TTL).Result(); err == nil && ok {
			got++
		}
	}
	elapsed := l.env.Clock.Now().Sub(start)
	drift := l.env.TTL/100 + 2*time.Millisecond
	l.validity = l.env.TTL - elapsed - drift
	if got >= len(l.env.Nodes)/2+1 && l.validity > 0 {
		return true, nil
	}
	// Undo the partial acquire everywhere: a node may have set the key even
	// if its reply was lost.
	l.unlockAll(ctx, token)
	l.validity = 0
	return false, nil
}

// Release runs the compare-and-delete script on every node.
func (l *Redlock) Release(ctx context.Context) error {
	token := l.own.current()
	l.own.drop()
	l.validity = 0
	return l.unlockAll(ctx, token)
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
