package sim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Target runs a world on real Redis servers instead of embedded ones. Time is
// real, scaled: one virtual second lasts Second. Every key of the run lives
// under Prefix; nothing else on the servers is read or written.
type Target struct {
	// Nodes are the servers. Single-instance locks use Nodes[0]; Redlock the
	// first five. Every client of a run — the lock clients and the engine's
	// own observers — is built from these options: address and network
	// (TCP or a unix socket), user, password, database and TLS.
	Nodes []*redis.Options
	// Replica replicates Nodes[0]. Scenarios with a replica reconfigure it
	// (REPLICAOF), so it must be the user's to reconfigure. Nil: none.
	Replica *redis.Options
	// Prefix goes in front of every key, e.g. "lockstep:3f9a1c2e:".
	Prefix string
	// Second is how long one virtual second lasts on the wall clock.
	Second time.Duration

	mu     sync.Mutex
	closes []func() error
}

// Margin is the real time of half a scenario second: how far a timeline
// keeps its steps from a TTL boundary. A run whose drift exceeds it may have
// a verdict off.
func (t *Target) Margin() time.Duration { return t.Second / 2 }

// Sub is a target on the same servers with Prefix extended by suffix: one
// run among several of the same command, each under its own keys. Closing
// the target stays with its parent.
func (t *Target) Sub(suffix string) *Target {
	return &Target{Nodes: t.Nodes, Replica: t.Replica, Prefix: t.Prefix + suffix, Second: t.Second}
}

// OnClose registers f to run when the target is closed (realredis keeps its
// lease on the replica this way).
func (t *Target) OnClose(f func() error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closes = append(t.closes, f)
}

// Close releases what the target holds on the servers beyond single runs.
// It is safe to call more than once.
func (t *Target) Close() error {
	t.mu.Lock()
	closes := t.closes
	t.closes = nil
	t.mu.Unlock()
	var errs []error
	for i := len(closes) - 1; i >= 0; i-- {
		errs = append(errs, closes[i]())
	}
	return errors.Join(errs...)
}

// ioTimeout bounds every network call to a real server: a dial, a command,
// a TLS handshake. A server that does not answer within it has stalled, and
// the run stops with an error that names it instead of waiting for ever.
// Commands that block on the server by design (WAIT) get their own timeout
// on top from go-redis.
const ioTimeout = 2 * time.Second

// Cleanup bounds: how long the removal of a run's keys may take after a
// normal end, and after an interruption (a signal must end the run within
// two seconds).
const (
	cleanupTimeout          = 5 * time.Second
	interruptCleanupTimeout = 1500 * time.Millisecond
)

// ErrNeedsReplica is returned for a scenario with a replica when the target
// has none.
var ErrNeedsReplica = errors.New("this scenario needs a replica of the first server (--replica)")

// ErrEmbeddedOnly is returned for a run real servers cannot host without
// touching more than the run's own keys.
var ErrEmbeddedOnly = errors.New("this run would make the first server a replica, which wipes it; it runs on embedded servers only")

// ErrNeedsNodes is returned for an implementation that needs more servers
// than the target has.
var ErrNeedsNodes = errors.New("not enough servers for this implementation")

// realWorld is what a world on real servers keeps.
type realWorld struct {
	t     *Target
	f     float64 // real time per virtual time
	start time.Time
	ctx   context.Context
	relay *relay
	// stopCut stops the watch that cuts every client connection when ctx
	// ends (a signal): a command blocked on a stalled server returns then.
	stopCut func() bool

	early, late time.Duration // the least and the most an event was late
}

// toVirtual converts a duration of the lock's time into virtual time.
func (w *World) toVirtual(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return time.Duration(float64(d) / w.real.f)
}

// ttlTolerance is how far apart two readings of a TTL may be and still be
// the same lease. On embedded servers readings are exact. On real ones a
// reading is off by up to a round trip to the server, which grows under
// load; a tenth of the lease is well above that and well below what a
// renewal adds (a third of the lease and more).
func (w *World) ttlTolerance() time.Duration {
	if w.real == nil {
		return 0
	}
	return max(w.toVirtual(3*time.Millisecond), w.setup.TTL/10)
}

// toReal converts virtual time into the lock's time, in whole milliseconds
// (the resolution of PX).
func (w *World) toReal(d time.Duration) time.Duration {
	if w.real == nil {
		return d
	}
	return time.Duration(float64(d) * w.real.f).Round(time.Millisecond)
}

// catchUp moves the world's clock to the wall clock's virtual time, to the
// tenth of a second, after a command that blocked on a real server.
func (w *World) catchUp() {
	t := w.toVirtual(time.Since(w.real.start)).Round(100 * time.Millisecond)
	if t > w.now {
		w.advance(t)
	}
}

// waitUntil sleeps on the wall clock until virtual time t has come, plus a
// millisecond so that a key due at t has expired.
func (w *World) waitUntil(t time.Duration) {
	r := w.real
	deadline := r.start.Add(time.Duration(float64(t)*r.f) + time.Millisecond)
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-r.ctx.Done():
		w.fail(r.ctx.Err())
	}
}

// realBackend is a redis-server. Clients connect to it directly; the engine
// keeps their connections so that it can cut them when the server "dies".
// An observer client, outside the gate, reads the run's keys for snapshots.
type realBackend struct {
	w    *World
	opts *redis.Options
	obs  *redis.Client

	mu       sync.Mutex
	conns    []net.Conn // the lock clients'
	obsConns []net.Conn // the observer's
	dead     bool
}

func newRealBackend(w *World, opts *redis.Options) *realBackend {
	b := &realBackend{w: w, opts: opts}
	o := observerOptions(opts, ioTimeout)
	o.Dialer = func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, err := b.connect(ctx)
		if err == nil {
			b.mu.Lock()
			b.obsConns = append(b.obsConns, c)
			b.mu.Unlock()
		}
		return c, err
	}
	b.obs = redis.NewClient(o)
	return b
}

// observerOptions are the options of a client outside the gate (the
// engine's readings, the cleanup): the server's own, every call bounded by
// timeout and by the context's deadline. go-redis ignores a context's
// deadline unless ContextTimeoutEnabled is set.
func observerOptions(opts *redis.Options, timeout time.Duration) *redis.Options {
	o := *opts
	o.PoolSize, o.MaxRetries, o.DisableIdentity = 2, -1, true
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = timeout, timeout, timeout
	o.ContextTimeoutEnabled = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &o
}

// network is how the server is reached: "tcp" or "unix".
func (b *realBackend) network() string {
	if b.opts.Network != "" {
		return b.opts.Network
	}
	return "tcp"
}

// dial opens a connection for a lock client; kill cuts it.
func (b *realBackend) dial(ctx context.Context) (net.Conn, error) {
	c, err := b.connect(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		c.Close()
		return nil, fmt.Errorf("dial %s: server is down", b.opts.Addr)
	}
	b.conns = append(b.conns, c)
	return c, nil
}

// connect opens a connection to the server: TCP or unix socket, TLS when
// the address asked for it, every step bounded.
func (b *realBackend) connect(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: ioTimeout}
	c, err := d.DialContext(ctx, b.network(), b.opts.Addr)
	if err != nil {
		return nil, err
	}
	if b.opts.TLSConfig != nil {
		tc := tls.Client(c, b.opts.TLSConfig)
		hctx, cancel := context.WithTimeout(ctx, ioTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", b.opts.Addr, err)
		}
		c = tc
	}
	return c, nil
}

func (b *realBackend) advance(time.Duration, time.Duration) {}

// kill cuts every client connection; the gate refuses new commands. The
// server itself is left alone: only this run loses it.
func (b *realBackend) kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dead = true
	for _, c := range b.conns {
		c.Close()
	}
	b.conns = nil
}

// interrupt cuts every connection of the run to the server, the
// observer's too: a reading or a command blocked on a server that stopped
// answering returns at once. Only the cleanup talks to the server after it.
func (b *realBackend) interrupt() {
	b.kill()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.obsConns {
		c.Close()
	}
	b.obsConns = nil
}

// stop is kill: this run loses the server until start.
func (b *realBackend) stop() { b.kill() }

// start lets clients reach the server again and deletes the run's keys
// there: what a restart without persistence leaves. Nothing else on the
// server is touched.
func (b *realBackend) start() error {
	b.mu.Lock()
	b.dead = false
	b.mu.Unlock()
	ctx, cancel := b.w.ioContext()
	defer cancel()
	return b.cleanup(ctx, b.obs, nil)
}

// jump cannot move a real server's clock. What a forward jump does to the
// run's keys it can do: each TTL is shortened by d, and a key with less
// than d left is deleted.
func (b *realBackend) jump(d time.Duration) error {
	ctx, cancel := b.w.ioContext()
	defer cancel()
	keys, err := b.scan(ctx)
	if err != nil {
		return err
	}
	real := b.w.toReal(d)
	for _, k := range keys {
		pttl, err := b.obs.PTTL(ctx, k).Result()
		switch {
		case err != nil:
			return err
		case pttl <= 0:
			// No expiry, or gone already.
		case pttl <= real:
			err = b.obs.Del(ctx, k).Err()
		default:
			err = b.obs.PExpire(ctx, k, pttl-real).Err()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *realBackend) close() {
	b.kill()
	_ = b.obs.Close()
}

func (b *realBackend) pattern() string { return "*" + b.w.real.t.Prefix + "*" }

// scan lists the run's keys. The fencing counter's key starts with a hash
// tag ("{lockstep:…}:fence"), so the pattern matches the prefix anywhere.
func (b *realBackend) scan(ctx context.Context) ([]string, error) {
	return scanKeys(ctx, b.obs, b.pattern())
}

func scanKeys(ctx context.Context, c *redis.Client, pattern string) ([]string, error) {
	var keys []string
	iter := c.Scan(ctx, 0, pattern, 100).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	slices.Sort(keys)
	return slices.Compact(keys), iter.Err()
}

// read reads the run's keys: values, and TTLs converted to virtual time left
// after now.
func (b *realBackend) read(now time.Duration) ([]KeyState, error) {
	ctx, cancel := b.w.ioContext()
	defer cancel()
	names, err := b.scan(ctx)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	types := make([]*redis.StatusCmd, len(names))
	pttls := make([]*redis.DurationCmd, len(names))
	strs := make([]*redis.StringCmd, len(names))
	hashes := make([]*redis.MapStringStringCmd, len(names))
	_, err = b.obs.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range names {
			types[i] = p.Type(ctx, k)
			pttls[i] = p.PTTL(ctx, k)
			strs[i] = p.Get(ctx, k)
			hashes[i] = p.HGetAll(ctx, k)
		}
		return nil
	})
	wall := time.Now()
	if err != nil && !isWrongType(err) && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	var keys []KeyState
	for i, k := range names {
		// Anyone who can write to the server can write under our prefix:
		// what comes from it is text for a terminal only once cleaned.
		ks := KeyState{Key: CleanText(k), Type: types[i].Val(), TTL: -1}
		// PTTL -2: the key expired (or went) while it was being read.
		if ks.Type == "none" || pttls[i].Val() == -2 {
			continue
		}
		switch ks.Type {
		case "string":
			if errors.Is(strs[i].Err(), redis.Nil) {
				continue
			}
			ks.Value = CleanText(strs[i].Val())
		case "hash":
			m := hashes[i].Val()
			fields := make([]string, 0, len(m))
			for f := range m {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			for j, f := range fields {
				fields[j] = CleanText(f + "=" + m[f])
			}
			ks.Value = strings.Join(fields, " ")
		default:
			ks.Value = "(" + CleanText(ks.Type) + ")"
		}
		// PTTL -1: no expiry. 0: less than a millisecond left.
		if pttl := pttls[i].Val(); pttl >= 0 {
			r := b.w.real
			due := wall.Add(pttl).Sub(r.start)
			// A millisecond of real time is worth more than that in
			// virtual time; round to what was measured.
			ttl := (time.Duration(float64(due)/r.f) - now).Round(10 * time.Millisecond)
			ks.TTL = max(ttl, time.Millisecond)
		}
		keys = append(keys, ks)
	}
	return keys, nil
}

func isWrongType(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE") }

// closingClient is a client of its own for the end of a run, every call
// bounded by ctx: the observer's connections may have been cut by an
// interruption.
func (b *realBackend) closingClient(ctx context.Context) *redis.Client {
	timeout := ioTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	return redis.NewClient(observerOptions(b.opts, max(timeout, time.Millisecond)))
}

// cleanup deletes the run's keys through c within ctx. A replica
// (read-only) is skipped: its primary's deletions reach it. When the server
// does not answer, the error names it and the keys the run last saw there.
func (b *realBackend) cleanup(ctx context.Context, c *redis.Client, last []KeyState) error {
	if info, err := c.Info(ctx, "replication").Result(); err == nil && InfoField(info, "role") == "slave" {
		return nil
	}
	keys, err := scanKeys(ctx, c, b.pattern())
	if err == nil && len(keys) > 0 {
		err = c.Del(ctx, keys...).Err()
	}
	if err == nil {
		return nil
	}
	if len(keys) == 0 {
		for _, k := range last {
			keys = append(keys, k.Key)
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("clean up %s: %w; keys under %s may be left there", b.opts.Addr, err, b.w.real.t.Prefix)
	}
	return fmt.Errorf("clean up %s: %w; left there: %s", b.opts.Addr, err, strings.Join(keys, ", "))
}

// InfoField reads one field of an INFO reply: InfoField(info, "role").
func InfoField(info, name string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// replicateThrough points the replica at the relay and waits until it has
// synchronised.
func (b *realBackend) replicateThrough(r *relay) error {
	ctx, cancel := context.WithTimeout(b.w.real.ctx, 10*time.Second)
	defer cancel()
	host, port, _ := net.SplitHostPort(r.addr())
	if err := b.obs.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return fmt.Errorf("REPLICAOF on %s: %w", b.opts.Addr, err)
	}
	for {
		info, err := b.obs.Info(ctx, "replication").Result()
		if err == nil && InfoField(info, "master_link_status") == "up" &&
			InfoField(info, "master_sync_in_progress") == "0" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica %s did not sync through the relay: %v", b.opts.Addr, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// promote makes the replica a primary: REPLICAOF NO ONE.
func (b *realBackend) promote() error {
	ctx, cancel := b.w.ioContext()
	defer cancel()
	return b.obs.Do(ctx, "REPLICAOF", "NO", "ONE").Err()
}

// replicateFrom points the replica straight at its primary again, through c.
func (b *realBackend) replicateFrom(ctx context.Context, c *redis.Client, primary *redis.Options) error {
	host, port, err := net.SplitHostPort(primary.Addr)
	if err != nil {
		return err
	}
	if _, err := strconv.Atoi(port); err != nil {
		return fmt.Errorf("primary address %q: %w", primary.Addr, err)
	}
	if err := c.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return fmt.Errorf("point the replica %s back at %s (REPLICAOF %s %s): %w", b.opts.Addr, primary.Addr, host, port, err)
	}
	return nil
}

// ioContext bounds one exchange with a real server: ioTimeout, and the run's
// own context (a signal ends it at once).
func (w *World) ioContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(w.real.ctx, ioTimeout)
}

// runErr is err, unless the run was interrupted: then the interruption is
// what the caller reports.
func (w *World) runErr(err error) error {
	if w.real != nil && w.real.ctx.Err() != nil {
		return w.real.ctx.Err()
	}
	return err
}
