package lockimpl

import "context"

// SetNXEX takes the lock and sets its lease in one atomic command:
// SET key 1 NX EX ttl. It releases with DEL.
//
// Fixes: a holder that crashes at any point leaves a lock that expires; NX and
// EX cannot be split.
//
// Misses: the value is a constant, so the lock cannot tell whose it is. When
// the holder's work outlasts the TTL, the lock expires, another client takes
// it, and the first holder's DEL removes the second holder's lock (误删删掉了
// 别人的锁).
type SetNXEX struct {
	env Env
}

// NewSetNXEX returns a SetNXEX lock.
func NewSetNXEX(env Env) Lock { return &SetNXEX{env: env} }

// TryAcquire sends SET key 1 NX EX ttl.
func (l *SetNXEX) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, "1", l.env.TTL).Result()
}

// Release sends DEL key.
func (l *SetNXEX) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}
