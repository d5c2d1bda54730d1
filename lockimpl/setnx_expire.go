package lockimpl

import (
	"context"
	"time"
)

// SetNXExpire adds a lease the way many first fixes do: SETNX, then EXPIRE
// (PEXPIRE for a TTL that is not whole seconds) in a second command.
//
// Fixes: a holder that crashes after both commands no longer blocks everyone
// forever; the key expires after the TTL.
//
// Misses: the two commands are not atomic. A crash (or a lost connection)
// between SETNX and EXPIRE leaves a key with no TTL: the same endless lock as
// bare SETNX. The value is a constant and DEL removes the key whoever wrote
// it (误删).
type SetNXExpire struct {
	env Env
}

// NewSetNXExpire returns a SetNXExpire lock.
func NewSetNXExpire(env Env) Lock { return &SetNXExpire{env: env} }

// TryAcquire sends SETNX key 1 and, when that succeeds, EXPIRE key ttl.
func (l *SetNXExpire) TryAcquire(ctx context.Context) (bool, error) {
	c := l.env.Nodes[0]
	ok, err := setnx(ctx, c, l.env.Key)
	if err != nil || !ok {
		return false, err
	}
	// We own the key now even if EXPIRE fails; report the hold. Whole
	// seconds go as EXPIRE, anything finer as PEXPIRE (as go-redis does for
	// SET's EX and PX).
	if l.env.TTL%time.Second == 0 {
		return true, c.Expire(ctx, l.env.Key, l.env.TTL).Err()
	}
	return true, c.PExpire(ctx, l.env.Key, l.env.TTL).Err()
}

// Release sends DEL key.
func (l *SetNXExpire) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}
