package lockimpl

import (
	"context"
	"sync"
)

// NoLock is the read-modify-write the course starts from: no lock at all.
// TryAcquire always says yes and sends nothing.
//
// Fixes: nothing. It is the baseline every lesson's damage is measured
// against: with several clients, updates are lost (超卖, the oversell).
//
// Misses: mutual exclusion.
type NoLock struct{}

// NewNoLock returns a NoLock.
func NewNoLock(Env) Lock { return NoLock{} }

// TryAcquire says yes.
func (NoLock) TryAcquire(context.Context) (bool, error) { return true, nil }

// Release does nothing.
func (NoLock) Release(context.Context) error { return nil }

// LocalMutex is a sync.Mutex in the process (本地锁, synchronized): correct
// between the goroutines of one process, and nothing at all between two
// processes, each of which has its own. TryAcquire is Mutex.TryLock, so a
// holder that asks again is refused rather than blocked.
//
// Fixes: exclusion inside one process.
//
// Misses: every lesson runs its clients as separate processes (separate
// servers behind a load balancer): each takes its own mutex, and they all
// hold at once.
type LocalMutex struct{ mu sync.Mutex }

// NewLocalMutex returns a LocalMutex: one per process, as a package-level
// variable would be.
func NewLocalMutex(Env) Lock { return &LocalMutex{} }

// TryAcquire takes the process's mutex if it is free.
func (l *LocalMutex) TryAcquire(context.Context) (bool, error) { return l.mu.TryLock(), nil }

// Release unlocks it.
func (l *LocalMutex) Release(context.Context) error {
	if l.mu.TryLock() {
		l.mu.Unlock()
		return ErrNotHeld
	}
	l.mu.Unlock()
	return nil
}
