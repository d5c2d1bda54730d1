// Package bigvalue is a lock that stores a large value under its key: its
// token, a colon and as many x's as it is told. Redis takes any value up
// to 512 MB, and a lock's code may write one; the tests that use this lock
// show that a trace keeps a bounded part of such a value (sim.MaxValue,
// sim.MaxArg), and that the run still judges and replicates it whole.
package bigvalue

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

// Info is the lock with values of size bytes after the token, named
// "big-value".
func Info(size int) lockimpl.Info {
	return lockimpl.Info{
		Name:    "big-value",
		Summary: text.Newf("SET NX PX of a token and %d bytes; release by GET, compare, DEL", "SET NX PX 写入令牌加 %d 字节；释放时 GET、比对、DEL", size),
		Nodes:   1,
		New:     func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, size: size} },
	}
}

// Value is the value a client whose token is token writes.
func Value(token string, size int) string { return token + ":" + strings.Repeat("x", size) }

// lock takes the key as uuid-get-del does, with a value of its own.
type lock struct {
	env   lockimpl.Env
	size  int
	value string // the value of the current hold, "" when none
}

// TryAcquire sends SET key value NX PX ttl.
func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	v := Value(l.env.Token(), l.size)
	ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, v, l.env.TTL).Result()
	if ok {
		l.value = v
	}
	return ok, err
}

// Release sends GET key and, when the value is the hold's, DEL key.
func (l *lock) Release(ctx context.Context) error {
	if l.value == "" {
		return lockimpl.ErrNotHeld
	}
	c := l.env.Nodes[0]
	v, err := c.Get(ctx, l.env.Key).Result()
	switch {
	case errors.Is(err, redis.Nil) || err == nil && v != l.value:
		l.value = ""
		return lockimpl.ErrNotHeld
	case err != nil:
		return fmt.Errorf("release: %w", err)
	}
	l.value = ""
	return c.Del(ctx, l.env.Key).Err()
}
