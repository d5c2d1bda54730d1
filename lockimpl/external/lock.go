package external

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Lock is one client's external lock: a lock (lockimpl.Lock) whose calls
// the agent makes, in the lock's own language. Its agent starts with its
// first call and ends when the run closes the lock (Close).
type Lock struct {
	env  Env
	spec Spec
	// sem lets one call drive the agent at a time; replies are the
	// commands' replies on their way back. Both are the run's channels.
	sem     chan struct{}
	replies chan reply
	// in holds the messages the lock's subscriptions received (pubsub.go).
	in inbox
	// owed is how many of the lock's commands are still to be answered
	// when its call ended: a Redlock that has its quorum does not wait for
	// the other nodes. Their replies go to it as the next call drives it.
	owed int
	// mu guards a and d against Close, which the run may call while a
	// call it gave up on still waits for the agent.
	mu sync.Mutex
	a  *agent
	d  *door
	// fence is the fencing token of the current hold, 0 when none.
	fence int64
	// renews is whether the adapter has renew() (its init said so); dog
	// is the current hold's watchdog, nil when none runs (watchdog.go).
	renews bool
	dog    *watchdog
	// broken is why the agent can take no more orders: it ended, or failed
	// to start. Every later call returns it.
	broken error
}

// ErrNotHeld is Release's error when the lock found the lock was no longer
// its client's, and left it alone (lockimpl.ErrNotHeld, which lockimpl's
// locks in other languages answer for it).
var ErrNotHeld = errors.New("lock not held")

// Env is what a client's lock is given, of lockimpl.Env: the nodes, as the
// client's go-redis clients, the lock's key and TTL, and the run's clock.
type Env struct {
	Nodes []*redis.Client
	Key   string
	TTL   time.Duration
	Clock Clock
	// Name is lockimpl.Env.Name, the client's: it seeds a Node lock's
	// Math.random, so that each client draws its own values, the same run
	// after run.
	Name string
	// Go starts the watchdog's goroutine (lockimpl.Env.Go), named for what
	// it does; MaxRenewals caps its renewals (lockimpl.DefaultMaxRenewals),
	// 0 for none.
	Go          func(ctx context.Context, name string, fn func(ctx context.Context))
	MaxRenewals int
}

// Clock is the run's time (lockimpl.Clock).
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// ErrAgent is in the error of a call whose agent ended, or said what
// lockstep could not read.
var ErrAgent = errors.New("the lock's agent failed")

// TryAcquire asks the agent's lock for the lock, once.
func (l *Lock) TryAcquire(ctx context.Context) (bool, error) {
	r, err := l.call(ctx, "acquire")
	if err != nil {
		return false, err
	}
	switch r.Result {
	case "held":
		l.fence = r.Fence
		l.watch(ctx)
		return true, nil
	case "refused":
		return false, nil
	}
	return false, resultErr(r)
}

// FenceToken is the fencing token the lock's last acquire returned, 0 when
// the lock is not held or hands out none (lockimpl's fenced locks in other
// languages answer Fence with it).
func (l *Lock) FenceToken() int64 { return l.fence }

// Release asks the agent's lock to give the lock back.
func (l *Lock) Release(ctx context.Context) error {
	l.unwatch()
	r, err := l.call(ctx, "release")
	l.fence = 0
	if err != nil {
		return err
	}
	switch r.Result {
	case "released":
		return nil
	case "not-held":
		return ErrNotHeld
	}
	return resultErr(r)
}

func resultErr(r report) error {
	if r.Result == "error" {
		return fmt.Errorf("%s", r.Error)
	}
	return fmt.Errorf("%w: it answered %q", ErrAgent, r.Result)
}

// call gives the agent one order, starting the agent first if need be.
func (l *Lock) call(ctx context.Context, op string) (report, error) {
	l.sem <- struct{}{}
	defer func() { <-l.sem }()
	if l.broken != nil {
		return report{}, l.broken
	}
	if l.a == nil {
		if err := l.start(ctx); err != nil {
			return report{}, err
		}
	}
	return l.drive(ctx, order{Op: op, NowMS: l.env.Clock.Now().UnixMilli()})
}

// seed is a Node lock's Math.random seed: from the client's name and the
// key, so that clients differ and runs do not.
func (l *Lock) seed() uint32 {
	if l.spec.Runtime != "node" {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(l.env.Name + "\x00" + l.env.Key))
	return h.Sum32() | 1
}

// start opens the door, starts the agent and has it make the lock.
func (l *Lock) start(ctx context.Context) error {
	argv, env, adapter, err := l.spec.command()
	if err != nil {
		return l.gone(err)
	}
	d, err := openDoor(len(l.env.Nodes))
	if err != nil {
		return l.gone(err)
	}
	l.mu.Lock()
	l.d = d
	l.mu.Unlock()
	a, err := startAgent(argv, env)
	if err != nil {
		return l.gone(err)
	}
	l.mu.Lock()
	l.a = a
	l.mu.Unlock()
	r, err := l.drive(ctx, order{Op: "init", NowMS: l.env.Clock.Now().UnixMilli(),
		Nodes: l.d.ports(), Key: l.env.Key, TTLMS: l.env.TTL.Milliseconds(), Adapter: adapter, Options: l.spec.Options,
		Seed: l.seed()})
	if err != nil {
		return err
	}
	if r.Result != "ready" {
		return l.gone(fmt.Errorf("making the lock: %w", resultErr(r)))
	}
	l.renews = r.Renews
	return nil
}

// gone marks the agent broken by err, ends it, and returns the error every
// call gets from now on.
func (l *Lock) gone(err error) error {
	if l.broken == nil {
		l.broken = fmt.Errorf("%w: %s: %w", ErrAgent, l.spec.Name, err)
		l.stop()
	}
	return l.broken
}

// Close ends the agent and closes the door; the run calls it as it ends.
func (l *Lock) Close() error {
	l.stop()
	return nil
}

func (l *Lock) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.a != nil {
		l.a.kill()
	}
	if l.d != nil {
		l.d.close()
	}
}
