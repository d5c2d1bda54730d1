// Package hostile holds locks that reach beyond their own keys, for the
// tests that show the guard stops them (scenarios/sim/command/keys.go): on embedded
// servers the server's hook refuses them, on a real server the run's ACL
// user. Each takes the lock as a lock does (SET NX PX), then oversteps.
package hostile

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Foreign is a key that belongs to someone else on the server.
const Foreign = "user:42"

// oversteps are the five ways, by name: what each does after taking the
// lock.
var oversteps = []struct {
	name string
	do   func(ctx context.Context, c *redis.Client, key string) error
}{
	{"flushall", func(ctx context.Context, c *redis.Client, _ string) error { return c.FlushAll(ctx).Err() }},
	{"flushdb", func(ctx context.Context, c *redis.Client, _ string) error { return c.FlushDB(ctx).Err() }},
	// The script declares only the lock's key; its body writes another.
	{"lua-body", func(ctx context.Context, c *redis.Client, key string) error {
		return c.Eval(ctx, "redis.call('SET', '"+Foreign+"', 'x') return 1", []string{key}).Err()
	}},
	{"rename", func(ctx context.Context, c *redis.Client, key string) error {
		return c.Rename(ctx, key, Foreign).Err()
	}},
	{"eval-keys", func(ctx context.Context, c *redis.Client, _ string) error {
		return c.Eval(ctx, "return redis.call('SET', KEYS[1], ARGV[1])", []string{Foreign}, "x").Err()
	}},
	// The next four log the connection in as the server's default user
	// (on a stock server it has no password: any password is OK), then
	// wipe the server, whatever the log-in answered.
	{"auth-default", func(ctx context.Context, c *redis.Client, _ string) error {
		return asDefault(ctx, c, c.Do(ctx, "AUTH", "default", "x").Err())
	}},
	{"hello-auth", func(ctx context.Context, c *redis.Client, _ string) error {
		return asDefault(ctx, c, c.Do(ctx, "HELLO", "2", "AUTH", "default", "x").Err())
	}},
	{"pipeline-auth", func(ctx context.Context, c *redis.Client, _ string) error {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "AUTH", "default", "x")
			p.FlushAll(ctx)
			return nil
		})
		return err
	}},
	{"reset", func(ctx context.Context, c *redis.Client, _ string) error {
		// RESET makes the connection the default user's again.
		return asDefault(ctx, c, c.Do(ctx, "RESET").Err())
	}},
}

// asDefault is what a lock that tried to become the default user does
// next: FLUSHALL. The error is the log-in's, else FLUSHALL's.
func asDefault(ctx context.Context, c *redis.Client, login error) error {
	if err := c.FlushAll(ctx).Err(); login == nil {
		return err
	}
	return login
}

// Locks are the hostile locks: FLUSHALL, FLUSHDB, a script whose body
// writes a key it did not declare, RENAME of the lock onto a foreign key,
// EVAL with a foreign key in KEYS, and four that log in as the default
// user before a FLUSHALL (AUTH, HELLO … AUTH, AUTH in a pipeline, RESET).
// Each is named "hostile-<what>".
func Locks() []lockimpl.Info {
	var infos []lockimpl.Info
	for _, o := range oversteps {
		infos = append(infos, lockimpl.Info{Name: "hostile-" + o.name, Nodes: 1,
			New: func(env lockimpl.Env) lockimpl.Lock { return &lock{env: env, do: o.do} }})
	}
	return infos
}

type lock struct {
	env lockimpl.Env
	do  func(ctx context.Context, c *redis.Client, key string) error
}

func (l *lock) TryAcquire(ctx context.Context) (bool, error) {
	c := l.env.Nodes[0]
	ok, err := c.SetNX(ctx, l.env.Key, l.env.Token(), l.env.TTL).Result()
	if err != nil || !ok {
		return ok, err
	}
	if err := l.do(ctx, c, l.env.Key); err != nil {
		return true, fmt.Errorf("overstep: %w", err)
	}
	return true, nil
}

func (l *lock) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}

// Runaway is a lock whose script never ends: it takes the lock, then sends
// EVAL "while true do end" 0. A real server answers BUSY to everyone until
// the script is killed. It is not among Locks: an embedded server runs the
// script in-process, where nothing can stop it.
func Runaway() lockimpl.Info {
	return lockimpl.Info{Name: "hostile-runaway-script", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		return &lock{env: env, do: func(ctx context.Context, c *redis.Client, _ string) error {
			return c.Eval(ctx, "while true do end", nil).Err()
		}}
	}}
}
