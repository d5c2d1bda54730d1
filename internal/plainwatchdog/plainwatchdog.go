// Package plainwatchdog is a lock whose watchdog is written the way teams
// write one, with nothing of lockstep's in it: a go statement, a
// time.Ticker at a third of the lease, and a context.WithTimeout around
// each renewal (AfterFunc: a chain of time.AfterFunc timers instead; EnvGo:
// the same goroutine started through Env.Go). It is for the tests that show the engine runs such code as
// written, on virtual time.
package plainwatchdog

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// renew extends the lease only while the key still holds the token.
var renew = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// release deletes the key only while it still holds the token.
var release = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

type lock struct {
	env   lockimpl.Env
	token string
	// stop ends the watchdog; done is closed when it has ended.
	stop, done chan struct{}
	// unwatched takes the lock without starting the watchdog.
	unwatched bool
	// afterFunc renews on a chain of time.AfterFunc timers instead of a
	// goroutine on a ticker.
	afterFunc bool
	// envGo starts the watchdog's goroutine through Env.Go.
	envGo bool
	timed timed
}

// TryAcquire makes one attempt, SET NX PX with a token, and starts the
// watchdog when it wins.
func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.env.Token()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if !ok || err != nil {
		return false, err
	}
	l.token = token
	switch {
	case l.afterFunc:
		l.done = make(chan struct{})
		l.timed.mu.Lock()
		l.timed.stopped = false
		l.renewAfter(token, l.done)
		l.timed.mu.Unlock()
	case l.envGo:
		stop, done := make(chan struct{}), make(chan struct{})
		l.stop, l.done = stop, done
		l.env.Go(ctx, "watchdog", func(context.Context) { l.watch(token, stop, done) })
	case !l.unwatched:
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		go l.watch(token, l.stop, l.done)
	}
	return true, nil
}

// watch renews the lease every third of it until stopped, or until a
// renewal finds the lock gone or fails.
func (l *lock) watch(token string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ticker := time.NewTicker(l.env.TTL / 3)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.env.TTL/3)
		n, err := renew.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, token, l.env.TTL.Milliseconds()).Int()
		cancel()
		if err != nil || n == 0 {
			return
		}
	}
}

// timed is the time.AfterFunc watchdog's state: the timer of the next
// renewal, and whether Release has stopped it. done is closed once by
// whoever ends the chain: Release, when it stops a timer that had not
// fired, or the timer's function, when it finds the chain stopped or a
// renewal fails.
type timed struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// renewAfter sets the timer of the next renewal, a third of the lease
// away. Its function runs on a goroutine of the runtime's.
func (l *lock) renewAfter(token string, done chan struct{}) {
	l.timed.timer = time.AfterFunc(l.env.TTL/3, func() { l.renewTimed(token, done) })
}

// renewTimed renews the lease and sets the next timer, unless Release
// stopped the chain or the renewal finds the lock gone or fails.
func (l *lock) renewTimed(token string, done chan struct{}) {
	t := &l.timed
	t.mu.Lock()
	stopped := t.stopped
	t.mu.Unlock()
	if stopped {
		close(done)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.env.TTL/3)
	n, err := renew.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, token, l.env.TTL.Milliseconds()).Int()
	cancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || n == 0 || t.stopped {
		close(done)
		return
	}
	l.renewAfter(token, done)
}

// stopTimed stops the time.AfterFunc chain and waits until no renewal
// runs.
func (l *lock) stopTimed() {
	t := &l.timed
	t.mu.Lock()
	t.stopped = true
	if t.timer.Stop() {
		close(l.done)
	}
	t.mu.Unlock()
	<-l.done
}

// Release stops the watchdog, waits for it, and deletes the key if it is
// still ours.
func (l *lock) Release(ctx context.Context) error {
	switch {
	case l.afterFunc && l.done != nil:
		l.stopTimed()
		l.done = nil
	case l.stop != nil:
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	n, err := release.Run(ctx, l.env.Nodes[0], []string{l.env.Key}, l.token).Int()
	l.token = ""
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

// Info is the lock, named "plain-watchdog".
var Info = lockimpl.Info{Name: "plain-watchdog", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env} }}

// AfterFunc is the same lock renewing on time.AfterFunc timers, named
// "afterfunc-watchdog".
var AfterFunc = lockimpl.Info{Name: "afterfunc-watchdog", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, afterFunc: true} }}

// EnvGo is the same lock with its watchdog's goroutine started through
// Env.Go, named "envgo-watchdog".
var EnvGo = lockimpl.Info{Name: "envgo-watchdog", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, envGo: true} }}

// Unwatched is the same lock without its watchdog, named
// "plain-unwatched": a lease that work longer than it outlives.
var Unwatched = lockimpl.Info{Name: "plain-unwatched", Nodes: 1,
	New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, unwatched: true} }}
