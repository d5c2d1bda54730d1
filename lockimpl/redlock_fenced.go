package lockimpl

import (
	"context"
	"slices"
)

// RedlockFenced is Redlock that tries to hand out a fencing token
// (栅栏令牌), the way one might add one: on every node the acquire takes the
// lock and increments that node's counter in one script (fenced's), and the
// token is the largest count among the nodes that said OK — a majority.
// The holder passes the token with each write, and the resource refuses a
// token lower than one it has seen, as with fenced.
//
// Fixes: while the nodes keep their counters and every acquire reaches the
// same nodes, each hold gets a larger token than the one before, so a
// holder paused past its lease has its late write refused.
//
// Misses: the counters are not one sequence, which is Martin Kleppmann's
// point against Redlock: counters on several nodes go out of sync (an
// acquire counts only on the nodes it reached), and a node that restarts
// without persistence starts again from 0. A later majority can then
// answer with a largest count that is no larger than the last holder's:
// the token is handed out twice, and the old holder's late write lands.
// A monotonic token takes consensus (ZooKeeper's zxid, etcd's revision).
type RedlockFenced struct {
	*Redlock
	counts []int64 // this attempt's count by node; 0 where it was refused
	fence  int64
}

// NewRedlockFenced returns a RedlockFenced lock over env.Nodes.
func NewRedlockFenced(env Env) Lock {
	l := &RedlockFenced{Redlock: newRedlock(env), counts: make([]int64, len(env.Nodes))}
	l.acquireOn = l.acquireAndCount
	return l
}

// acquireAndCount runs the acquire-and-count script on node i. Each node's
// goroutine writes its own element of counts.
func (l *RedlockFenced) acquireAndCount(ctx context.Context, i int, token string) error {
	keys := []string{l.env.Key, FenceKey(l.env.Key)}
	n, err := fencedAcquireScript.Eval(ctx, l.env.Nodes[i], keys, token, ttlMillis(l.env.TTL)).Int64()
	if err == nil && n == 0 {
		return errRefused
	}
	if err == nil {
		l.counts[i] = n
	}
	return err
}

// TryAcquire is Redlock's, and on success takes the largest count of the
// nodes that said OK as the fencing token.
func (l *RedlockFenced) TryAcquire(ctx context.Context) (bool, error) {
	clear(l.counts)
	ok, err := l.Redlock.TryAcquire(ctx)
	if ok {
		l.fence = slices.Max(l.counts)
	}
	return ok, err
}

// Release is Redlock's; the token goes with the hold.
func (l *RedlockFenced) Release(ctx context.Context) error {
	l.fence = 0
	return l.Redlock.Release(ctx)
}

// Fence is the fencing token of the current hold.
func (l *RedlockFenced) Fence() int64 { return l.fence }
