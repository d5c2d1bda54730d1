package lockimpl

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// SetNX is the first lock everyone writes: SETNX to take it, DEL to give it
// back.
//
// Fixes: mutual exclusion between clients that behave — SETNX is atomic, so
// two clients cannot both create the key.
//
// Misses: the key never expires. A holder that crashes (or is killed, or
// loses its network) before DEL leaves the lock taken forever, and every
// other client waits forever (死锁). DEL also removes whatever is there,
// whoever wrote it.
type SetNX struct {
	env Env
}

// NewSetNX returns a SetNX lock.
func NewSetNX(env Env) Lock { return &SetNX{env: env} }

// TryAcquire sends SETNX key 1.
func (l *SetNX) TryAcquire(ctx context.Context) (bool, error) {
	return setnx(ctx, l.env.Nodes[0], l.env.Key)
}

// Release sends DEL key.
func (l *SetNX) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}

// setnx sends the literal SETNX command (go-redis's SetNX with no expiry
// sends SET NX, which is the same thing under another name).
func setnx(ctx context.Context, c *redis.Client, key string) (bool, error) {
	return c.Do(ctx, "SETNX", key, "1").Bool()
}
