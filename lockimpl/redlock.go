package lockimpl

import (
	"context"
	"errors"
	"time"
)

// RedlockNodes is how many independent Redis servers Redlock uses.
const RedlockNodes = 5

// Redlock takes the lock on a majority of N independent Redis servers (no
// replication between them): SET key token NX PX ttl on every node at once,
// each from a goroutine of its own, as the Redlock spec advises (asking one
// after another would add every node's round trip to the time the acquire
// takes, and so take it from the validity). The lock is held when at least
// N/2+1 said OK and time is left — validity = TTL − time spent acquiring −
// clock drift, from before the first command to after the last answer.
// Otherwise it runs the compare-and-delete script on every node, at once,
// as the spec says (also those that did not answer OK); on release, on
// every node too. In the simulator each node's command is a move of its
// own ("A/redis-3"): the scheduler, not the Go runtime, decides the order in
// which the nodes answer.
//
// Each node's command has a timeout of its own, small next to the lease,
// as the spec prescribes: context.WithTimeout(ctx, nodeTimeout(TTL)), TTL/200
// and at least 50 ms — 50 ms for a 10s lease, the top of the 5–50 ms the
// spec suggests for it (below 50 ms an ordinary round trip under load, or
// lockstep's scheduling of each command on real servers, would time out). A
// node that is down, cut off or slow costs the attempt that long, not the
// lease: without the timeout the acquire waits for the slow answer while
// the keys written first expire (redlock-slow-node). A command that timed
// out may still reach its node later, one reason the release of a failed
// attempt goes to every node; and after a timeout the next attempt draws a
// new token, so that a late release of this attempt cannot delete the next
// one's key. Against a production Redis, go-redis bounds the wait for a
// reply by the context only when the client has ContextTimeoutEnabled
// (otherwise by its ReadTimeout, 3s by default): give the clients that
// option. lockstep's simulated clients honour the deadline.
//
// Fixes: losing one server (a crash, a failover) no longer loses the lock; the
// majority still has it. A slow or dead node costs an attempt, not the lease.
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
	// nodeTimeout bounds each node's command; 0: no bound, a node's answer
	// is waited for as long as it takes (redlock-no-validity).
	nodeTimeout time.Duration
	// late: a node timed out in the last attempt or release; the next
	// attempt draws a new token.
	late bool
	// acquireOn, when set, takes the lock on node i in place of SET NX PX
	// (redlock-fenced's acquire-and-count script); errRefused is a "no".
	acquireOn func(ctx context.Context, i int, token string) error
}

// NewRedlock returns a Redlock lock over env.Nodes.
func NewRedlock(env Env) Lock { return newRedlock(env) }

func newRedlock(env Env) *Redlock {
	return &Redlock{env: env, own: owner{env: env}, nodeTimeout: nodeTimeout(env.TTL)}
}

// NewRedlockNoValidity returns Redlock without the check of the time left:
// a majority of OKs is a hold, even when acquiring took longer than the
// lease and the first keys have expired meanwhile (redlock-no-validity, the
// check antirez points to against a pause during the acquire). Nor does it
// bound a node's command with a timeout: it is the Redlock that does not
// count time, and waits for a slow node as long as it takes.
func NewRedlockNoValidity(env Env) Lock {
	return &Redlock{env: env, own: owner{env: env}, noValidity: true}
}

// TryAcquire asks every node once, all at once, and waits for every answer.
func (l *Redlock) TryAcquire(ctx context.Context) (bool, error) {
	if l.late && !l.holding {
		// A node timed out in the last attempt: what was sent to it may
		// still be on its way, and a late release carrying this token
		// would delete this attempt's key there. A new token, then (the
		// Redlock spec wants the value unique "across all clients and all
		// lock requests"); otherwise it is kept, so that a key set by a
		// lost reply is still recognised as this client's.
		l.own.drop()
	}
	l.late = false
	token := l.own.current()
	start := l.env.Clock.Now()
	got := 0
	var errs []error
	for _, err := range l.onEvery(ctx, func(ctx context.Context, i int) error { return l.setOn(ctx, i, token) }) {
		l.noteLate(err)
		// A node that is down or refuses counts as a "no"; the majority
		// decides.
		switch {
		case err == nil:
			got++
		case !errors.Is(err, errRefused):
			errs = append(errs, err)
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
	for _, err := range l.onEvery(ctx, func(ctx context.Context, i int) error { return releaseOn(ctx, l.env, i, token) }) {
		l.noteLate(err)
	}
	if len(errs) == len(l.env.Nodes) {
		// Not "someone else holds it": no server answered at all.
		return false, errors.Join(errs...)
	}
	return false, nil
}

// setOn takes the lock on node i: SET NX PX, or acquireOn.
func (l *Redlock) setOn(ctx context.Context, i int, token string) error {
	if l.acquireOn != nil {
		return l.acquireOn(ctx, i, token)
	}
	ok, err := l.env.Nodes[i].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if err == nil && !ok {
		return errRefused
	}
	return err
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

// errRefused is a node's "no" to SET NX: the key is there.
var errRefused = errors.New("lockstep: key already set")

// onEvery runs f for every node, each in a goroutine of its own
// (Env.Fan), and returns their errors by node once all have returned. The
// answers are counted by node, never by arrival, so the result does not
// depend on which node answered first.
func (l *Redlock) onEvery(ctx context.Context, f func(ctx context.Context, i int) error) []error {
	errs := make([]error, len(l.env.Nodes))
	l.env.fan(ctx, len(l.env.Nodes), func(ctx context.Context, i int) {
		if l.nodeTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, l.nodeTimeout)
			defer cancel()
		}
		errs[i] = f(ctx, i)
	})
	return errs
}

// noteLate notes a node's timeout: the command may still be on its way.
func (l *Redlock) noteLate(err error) {
	if errors.Is(err, context.DeadlineExceeded) {
		l.late = true
	}
}

// nodeTimeout is how long Redlock waits for one node's answer to one
// command under a lease of ttl: ttl/200, at least 50 ms (see Redlock).
func nodeTimeout(ttl time.Duration) time.Duration {
	return max(ttl/200, 50*time.Millisecond)
}

func (l *Redlock) unlockAll(ctx context.Context, token string) error {
	released, failed := 0, 0
	var errs []error
	for _, err := range l.onEvery(ctx, func(ctx context.Context, i int) error { return releaseOn(ctx, l.env, i, token) }) {
		l.noteLate(err)
		switch {
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
