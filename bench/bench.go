// Package bench measures what each lock implementation costs on real Redis
// servers: how many acquire+release pairs one client completes per second,
// next to the limit the servers' round trip sets, measured the same way.
//
// The limit is one SET per round trip: a lock that takes one round trip to
// acquire and one to release completes at most half as many pairs per second
// as a client completes SETs. The ratio of an implementation's pairs/s to
// that limit is what its extra round trips (a GET before the DEL, a WAIT, a
// fencing counter, five nodes) cost.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Config is what a bench run needs.
type Config struct {
	// Nodes are the servers: single-instance locks use the first, Redlock
	// the first five.
	Nodes []*redis.Options
	// Replica, when set, replicates Nodes[0]: uuid-lua-wait then waits for
	// its acknowledgement, as in production. Without it, that lock's WAIT
	// is skipped (Env.Replicas = 0), and the row says so.
	Replica bool
	// Prefix goes in front of every key the run writes; the run deletes
	// them at the end.
	Prefix string
	// Duration is how long each implementation, and the baseline, runs.
	Duration time.Duration
	// Impls are the implementations to time, in order.
	Impls []lockimpl.Info
}

// Row is one implementation's result.
type Row struct {
	Impl string
	// Pairs is how many acquire+release pairs completed, in Elapsed.
	Pairs   int
	Elapsed time.Duration
	// Commands is how many Redis commands the pairs sent, all servers
	// counted.
	Commands int
	// SetsPerSecond is the baseline measured just before this row, so that
	// a machine busy with something else weighs on both alike.
	SetsPerSecond float64
	// Skipped says why the implementation did not run (too few servers,
	// no Redis at all); Note qualifies a result.
	Skipped, Note string
}

// PerSecond is the row's pairs per second.
func (r Row) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Pairs) / r.Elapsed.Seconds()
}

// Ratio is the row's pairs per second over the limit measured with it.
func (r Row) Ratio() float64 {
	if r.SetsPerSecond <= 0 {
		return 0
	}
	return r.PerSecond() / (r.SetsPerSecond / 2)
}

// Result is a bench run: a row per implementation.
type Result struct {
	Rows []Row
}

// SetsPerSecond is the median of the rows' baselines: SETs one client
// completes per second on the first server, one per round trip.
func (r Result) SetsPerSecond() float64 {
	var all []float64
	for _, row := range r.Rows {
		if row.SetsPerSecond > 0 {
			all = append(all, row.SetsPerSecond)
		}
	}
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return all[len(all)/2]
}

// Limit is the pairs per second a lock with one round trip per acquire and
// one per release could reach.
func (r Result) Limit() float64 { return r.SetsPerSecond() / 2 }

// NewPrefix is a key prefix of its own for one bench run.
func NewPrefix() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "lockstep-bench:" + hex.EncodeToString(b) + ":", nil
}

// counter counts the commands a client sends for its lock, not the
// connection's handshake, from every goroutine the lock sends from
// (Redlock asks its nodes at once).
type counter struct{ n *atomic.Int64 }

func (counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.count(cmd)
		return next(ctx, cmd)
	}
}
func (c counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.count(cmd)
		}
		return next(ctx, cmds)
	}
}

func (c counter) count(cmd redis.Cmder) {
	switch cmd.Name() {
	case "hello", "auth", "select", "client", "ping":
	default:
		c.n.Add(1)
	}
}

// ioTimeout bounds every call to a server: one that does not answer
// within it has stalled, and the run says so instead of waiting.
const ioTimeout = 2 * time.Second

// Cleanup bounds: after a normal end, and after an interruption (a signal
// must end the run within two seconds).
const (
	cleanupTimeout          = 5 * time.Second
	interruptCleanupTimeout = 1500 * time.Millisecond
)

// clientOptions are o with every call bounded and no hidden retries.
func clientOptions(o *redis.Options) *redis.Options {
	c := *o
	c.DialTimeout, c.ReadTimeout, c.WriteTimeout = ioTimeout, ioTimeout, ioTimeout
	c.MaxRetries = -1
	c.ContextTimeoutEnabled = true
	return &c
}

// run is one bench run's clients: each is closed when the run's context
// ends (a signal), so that a call blocked on a stalled server returns at
// once.
type run struct {
	mu      sync.Mutex
	clients []*redis.Client
	done    bool
}

func (r *run) client(o *redis.Options) *redis.Client {
	c := redis.NewClient(clientOptions(o))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		_ = c.Close()
	}
	r.clients = append(r.clients, c)
	return c
}

func (r *run) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	for _, c := range r.clients {
		_ = c.Close()
	}
}

// serverError says which server a call failed on, and that a timeout is a
// server that stopped answering.
func serverError(addr, what string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s did not answer %s within %s: %w", addr, what, ioTimeout, err)
	}
	return fmt.Errorf("%s: %s: %w", addr, what, err)
}

// Run times cfg's implementations one after another, each on keys of its
// own under cfg.Prefix, and removes every key it wrote; what it could not
// remove is in the error, by name.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if len(cfg.Nodes) == 0 {
		return res, errors.New("bench needs at least one server")
	}
	r := &run{}
	stop := context.AfterFunc(ctx, r.closeAll)
	written := []string{cfg.Prefix + "baseline"}
	defer func() {
		stop()
		r.closeAll()
		err = errors.Join(err, cleanup(ctx, cfg, written))
	}()
	clients := make([]*redis.Client, len(cfg.Nodes))
	for i, o := range cfg.Nodes {
		clients[i] = r.client(o)
		if err := clients[i].Ping(ctx).Err(); err != nil {
			return res, serverError(o.Addr, "PING", err)
		}
	}
	for _, in := range cfg.Impls {
		// The baseline, right before: SETs, one round trip each.
		key := cfg.Prefix + "baseline"
		n, start := 0, time.Now()
		for time.Since(start) < cfg.Duration/2 {
			if err := clients[0].Set(ctx, key, n, time.Minute).Err(); err != nil {
				return res, runErr(ctx, serverError(cfg.Nodes[0].Addr, "SET "+key, err))
			}
			n++
		}
		written = append(written, cfg.Prefix+in.Name)
		sets := float64(n) / time.Since(start).Seconds()
		row, err := pairs(ctx, r, cfg, in)
		if err != nil {
			return res, runErr(ctx, fmt.Errorf("%s: %w", in.Name, err))
		}
		if row.Skipped == "" {
			row.SetsPerSecond = sets
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// pairs times one implementation.
// runErr is err, unless the run was interrupted: then the interruption
// is what the caller reports.
func runErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func pairs(ctx context.Context, r *run, cfg Config, in lockimpl.Info) (Row, error) {
	row := Row{Impl: in.Name}
	if in.Nodes > len(cfg.Nodes) {
		row.Skipped = fmt.Sprintf("needs %d servers, %d given", in.Nodes, len(cfg.Nodes))
		return row, nil
	}
	nodes := make([]*redis.Client, in.Nodes)
	var sent atomic.Int64
	for i := range nodes {
		nodes[i] = r.client(cfg.Nodes[i])
		nodes[i].AddHook(counter{&sent})
	}
	replicas := 0
	if cfg.Replica && in.Nodes == 1 {
		replicas = 1
	}
	tokens := 0
	tok, err := NewPrefix()
	if err != nil {
		return row, err
	}
	env := lockimpl.Env{
		Nodes: nodes, Key: cfg.Prefix + in.Name, TTL: 30 * time.Second, Clock: lockimpl.WallClock{},
		Token:    func() string { tokens++; return fmt.Sprintf("%s%d", strings.TrimSuffix(tok, ":"), tokens) },
		Replicas: replicas,
	}
	lock := in.New(env)
	// A few pairs first: connections, script caches.
	for range 3 {
		if _, err := lock.TryAcquire(ctx); err != nil {
			return row, err
		}
		if err := lock.Release(ctx); err != nil {
			return row, err
		}
	}
	sent.Store(0)
	start := time.Now()
	for time.Since(start) < cfg.Duration {
		ok, err := lock.TryAcquire(ctx)
		if err != nil {
			return row, err
		}
		if !ok {
			return row, errors.New("the lock was refused with no one else holding it")
		}
		if err := lock.Release(ctx); err != nil {
			return row, err
		}
		row.Pairs++
	}
	row.Elapsed = time.Since(start)
	row.Commands = int(sent.Load())
	if row.Commands == 0 {
		row.Skipped = "sends no Redis command"
	}
	if in.Name == "uuid-lua-wait" && replicas == 0 {
		row.Note = "no replica given: WAIT skipped"
	}
	return row, nil
}

// cleanup deletes every key under cfg.Prefix on every server, all at once,
// with clients of its own, within cleanupTimeout (interruptCleanupTimeout
// once ctx is done). What it cannot remove it names: the keys the run
// wrote (written, and keys under them), on that server.
func cleanup(ctx context.Context, cfg Config, written []string) error {
	bound := cleanupTimeout
	if ctx.Err() != nil {
		bound = interruptCleanupTimeout
	}
	cctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	errs := make([]error, len(cfg.Nodes))
	var wg sync.WaitGroup
	for i, o := range cfg.Nodes {
		wg.Go(func() {
			opts := clientOptions(o)
			opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = bound, bound, bound
			c := redis.NewClient(opts)
			defer c.Close()
			if err := cleanServer(cctx, c, cfg.Prefix); err != nil {
				errs[i] = fmt.Errorf("clean up %s: %w; left there: %s (and keys under them)", o.Addr, err, strings.Join(written, ", "))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cleanServer deletes every key under prefix on the server c reaches.
func cleanServer(ctx context.Context, c *redis.Client, prefix string) error {
	iter := c.Scan(ctx, 0, "*"+prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return err
	}
	slices.Sort(keys)
	if keys = slices.Compact(keys); len(keys) == 0 {
		return nil
	}
	return c.Del(ctx, keys...).Err()
}

// Print writes the table: pairs per second, the ratio to the limit, and the
// commands each pair took.
func Print(w io.Writer, res Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "limit: %.0f SET/s on the first server (the median of the baselines timed before each row), one per round trip\n"+
		"       → %.0f pairs/s for a lock with one round trip to acquire and one to release; ×limit is each row over its own baseline\n\n",
		res.SetsPerSecond(), res.Limit())
	fmt.Fprintf(&b, "%-28s %10s %7s %9s\n", "implementation", "pairs/s", "×limit", "cmd/pair")
	for _, r := range res.Rows {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "%-28s %10s %7s %9s  (%s)\n", r.Impl, "—", "—", "—", r.Skipped)
			continue
		}
		note := ""
		if r.Note != "" {
			note = "  (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "%-28s %10.0f %7.2f %9.1f%s\n", r.Impl, r.PerSecond(), r.Ratio(),
			float64(r.Commands)/float64(max(r.Pairs, 1)), note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
