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
// compare-and-delete script on every node, as the spec says (also those that
// did not answer OK); on release, on every node too.
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
	holding  bool // acquired and not yet released
	// noValidity: a majority is enough, however long the acquire took
	// (redlock-no-validity).
	noValidity bool
}

// NewRedlock returns a Redlock lock over env.Nodes.
func NewRedlock(env Env) Lock { return &Redlock{env: env, own: owner{env: env}} }

// NewRedlockNoValidity returns Redlock without the check of the time left:
// a majority of OKs is a hold, even when acquiring took longer than the
// lease and the first keys have expired meanwhile (redlock-no-validity, the
// check antirez points to against a pause during the acquire).
func NewRedlockNoValidity(env Env) Lock {
	return &Redlock{env: env, own: owner{env: env}, noValidity: true}
}

// TryAcquire tries every node once, in order.
func (l *Redlock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	start := l.env.Clock.Now()
	got := 0
	var errs []error
	for _, c := range l.env.Nodes {
		// A node that is down or refuses counts as a "no"; the majority
		// decides.
		ok, err := c.SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
		switch {
		case err != nil:
			errs = append(errs, err)
		case ok:
			got++
		}
	}
	elapsed := l.env.Clock.Now().Sub(start)
	drift := l.env.TTL/100 + 2*time.Millisecond
	validity := l.env.TTL - elapsed - drift
	majority := got >= len(l.env.Nodes)/2+1
	l.validity = 0
	if majority {
		l.validity = validity
	}
	if majority && (validity > 0 || l.noValidity) {
		l.holding = true
		return true, nil
	}
	if l.holding {
		// The holder asking again (Redlock is not reentrant): the keys with
		// its token are its hold, which a refusal must not undo.
		return false, nil
	}
	// Undo the partial acquire on every node, as the Redlock spec says: a
	// node whose reply was lost may have set the key, and one that answered
	// nil may hold this client's own key from an earlier attempt. The
	// compare-and-delete leaves other clients' keys alone.
	for i := range l.env.Nodes {
		_ = releaseOn(ctx, l.env, i, token)
	}
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
	l.validity, l.holding = 0, false
	err := l.unlockAll(ctx, token)
	if err == nil || errors.Is(err, ErrNotHeld) {
		l.own.drop()
	}
	return err
}

// Validity is how long the hold is good for, counted from the end of the
// acquire: TTL − elapsed − drift. After an attempt that got a majority but
// no time (it failed, or, without the check, held anyway) it is that
// negative or zero value; after one without a majority, and after a
// release, 0.
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
