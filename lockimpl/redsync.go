package lockimpl

import (
	"context"
	"errors"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
)

// Redsync is github.com/go-redsync/redsync/v4 over go-redis, one pool per
// node: NewMutex with the TTL as its expiry, TryLockContext to take it,
// UnlockContext to give it back. On one node it is a single-instance lock;
// on five it is Redlock. Either way it asks every node at once, each from a
// goroutine of its own (the simulator schedules each of those commands as
// a move of its own: "A/redis-3"), and the lock is held when a majority
// said OK in time: validity = expiry − elapsed − 1 % drift. A failed attempt
// runs its compare-and-delete script on every node, also those that did not
// answer OK. A release is the same script on every node.
//
// The adapter passes Env.Token as the library's value generator (it would
// draw 16 random bytes: traces would differ from run to run) and one try
// per call (the program around the lock retries).
//
// redsync bounds each attempt with a context timeout of 5 % of the expiry.
// The adapter sets it to twice the expiry, longer than any lesson keeps an
// attempt waiting (redlock-slow-node's node answers after 1.1 TTLs), so
// that its commands reach a slow node as the built-in redlock's do and the
// lessons compare the two algorithms, not their timeouts: an attempt that
// takes longer than the expiry could not succeed anyway, its validity gone.
//
// Everything else is redsync's own, as written: it measures the time an
// acquire took with time.Now and, when no validity is left, runs the
// release script on every node and reports no lock. In the simulator
// time.Now is the lesson's virtual time, so an acquire the lesson stretches
// (a paused client, a slow node) takes as long for redsync as it does in
// the lesson.
//
// Fixes (five nodes): losing one server does not lose the lock.
//
// Misses: no watchdog (Extend exists; nothing calls it for you), so work
// longer than the TTL runs on without the lock; no fencing token, so a
// paused holder's late write goes through; on one node, a failover can lose
// the lock; on five, restarts without persistence and clock jumps.
type Redsync struct {
	env   Env
	mutex *redsync.Mutex
	held  bool
}

// redsyncDrift is redsync's default drift factor.
const redsyncDrift = 0.01

// NewRedsync returns a Redsync lock over env.Nodes.
func NewRedsync(env Env) Lock {
	pools := make([]redsyncredis.Pool, len(env.Nodes))
	for i, c := range env.Nodes {
		pools[i] = goredis.NewPool(c)
	}
	m := redsync.New(pools...).NewMutex(env.Key,
		redsync.WithExpiry(env.TTL),
		redsync.WithTries(1),
		redsync.WithDriftFactor(redsyncDrift),
		redsync.WithTimeoutFactor(2),
		redsync.WithGenValueFunc(func() (string, error) { return env.Token(), nil }),
	)
	return &Redsync{env: env, mutex: m}
}

// TryAcquire calls TryLockContext.
func (l *Redsync) TryAcquire(ctx context.Context) (bool, error) {
	err := l.mutex.TryLockContext(ctx)
	if err != nil {
		if allNodesFailed(err, len(l.env.Nodes)) {
			// Not "someone else holds it": no server answered at all.
			return false, err
		}
		return false, nil
	}
	l.held = true
	return true, nil
}

// Release calls UnlockContext: the release script on every node.
func (l *Redsync) Release(ctx context.Context) error {
	if !l.held {
		return ErrNotHeld
	}
	ok, err := l.mutex.UnlockContext(ctx)
	if ok {
		l.held = false
		return nil
	}
	if err != nil && allNodesFailed(err, len(l.env.Nodes)) {
		return err
	}
	l.held = false
	if err != nil {
		return errors.Join(ErrNotHeld, err)
	}
	return ErrNotHeld
}

// allNodesFailed says whether err, as redsync joins the errors of its
// nodes, is a Redis error from every node.
func allNodesFailed(err error, nodes int) bool {
	n := 0
	var walk func(error)
	walk = func(e error) {
		var re *redsync.RedisError
		if errors.As(e, &re) && !isJoin(e) {
			n++
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return n >= nodes
}

func isJoin(e error) bool {
	_, ok := e.(interface{ Unwrap() []error })
	return ok
}
