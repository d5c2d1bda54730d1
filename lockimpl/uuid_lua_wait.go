package lockimpl

import (
	"context"
	"time"
)

// UUIDLuaWait is UUIDLua that also waits for the lock to reach the replicas:
// after SET NX PX it sends WAIT for Env.Replicas replicas and gives the lock
// back (compare-and-delete) when they do not all acknowledge it in time.
// With no replicas configured it behaves as UUIDLua.
//
// Fixes: the lock is not believed held until a replica has it, so a
// failover that promotes that replica keeps it (主从切换丢锁, when
// replication is merely slow).
//
// Misses: WAIT counts acknowledgements; it is not consensus. A failover can
// still promote a replica that did not acknowledge, an acknowledged write
// can be lost with a replica that restarts without persistence, and while
// fewer replicas are connected than configured nobody gets the lock at all.
// No renewal, no fencing: pauses break it as they break UUIDLua.
type UUIDLuaWait struct {
	env Env
	own owner
}

// NewUUIDLuaWait returns a UUIDLuaWait lock.
func NewUUIDLuaWait(env Env) Lock { return &UUIDLuaWait{env: env, own: owner{env: env}} }

// WaitTimeout is how long an acquire waits for replica acknowledgement: a
// tenth of the TTL, so that a lock that took that long still has most of its
// lease left.
func WaitTimeout(ttl time.Duration) time.Duration { return ttl / 10 }

// TryAcquire sends SET key token NX PX ttl, then WAIT replicas timeout. The
// lock is held only when enough replicas acknowledged; otherwise it is
// deleted again (if it is still ours) and the attempt fails.
func (l *UUIDLuaWait) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, token, l.env.TTL).Result()
	if err != nil || !ok || l.env.Replicas == 0 {
		return ok, err
	}
	n, err := l.env.Nodes[0].Wait(ctx, l.env.Replicas, WaitTimeout(l.env.TTL)).Result()
	if err == nil && n >= int64(l.env.Replicas) {
		return true, nil
	}
	// Not on enough replicas to survive a failover: give it back. Should
	// that fail too, the lease still runs out.
	_ = releaseOn(ctx, l.env, 0, token)
	return false, err
}

// Release runs the compare-and-delete script.
func (l *UUIDLuaWait) Release(ctx context.Context) error {
	return releaseOwned(ctx, l.env, &l.own)
}
