// Package realserver is the engine's backend for real redis-server
// processes: a backend.Backend per server of a run on a backend.Target.
//
// The engine (package sim) is a state machine over servers it reaches only
// through backend.Backend; it does not import this package, nor does this
// one import it: a real server's backend needs packages backend, command
// and trace only. Whoever builds a target for real servers plugs it in —
// realredis.Connect sets Target.NewBackend to New — and every run on that
// target gets its servers from here.
//
// A backend here keeps to the run's keys (everything under the target's
// prefix): it reads them for snapshots through an observer client outside
// the gate, deletes them for a restart and at the end of the run, and
// shortens their TTLs for a clock jump, which a real server's clock cannot
// do. It holds the lock clients' connections so that it can cut them when
// the server "dies", and cuts every connection of the run when the run's
// context is cancelled (a signal). A replica follows its primary through a
// relay (relay.go) that holds the replication stream for the scenario's
// lag; at the end of the run it replicates its primary directly again.
package realserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

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

// ObserverName is the name (CLIENT SETNAME) of every connection lockstep
// makes for itself rather than for a lock: the backends' observers and
// cleanups, and realredis's checks.
const ObserverName = "lockstep-observer"

// Named has every connection of a client with options o name itself
// ObserverName as it opens (CLIENT SETNAME), so that whoever watches
// MONITOR can leave lockstep's own lines out. Unlike go-redis's
// ClientName, a server that refuses the name (a user without
// +client|setname, a proxy without CLIENT) still serves the connection.
func Named(o *redis.Options) {
	then := o.OnConnect
	o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
		_ = cn.ClientSetName(ctx, ObserverName).Err()
		if then != nil {
			return then(ctx, cn)
		}
		return nil
	}
}

// server is a redis-server. Clients connect to it directly; the backend
// keeps their connections so that it can cut them when the server "dies".
// An observer client, outside the gate, reads the run's keys for snapshots.
type server struct {
	run  *backend.RealRun
	opts *redis.Options
	obs  *redis.Client
	// stopCut stops the watch that cuts every connection when the run's
	// context ends (a signal): a command blocked on a stalled server
	// returns then.
	stopCut func() bool
	relay   *relay // a replica's, once it follows its primary
	// types are the types of the run's keys at the last reading, and long
	// those of them that were strings longer than a snapshot keeps
	// (read.go).
	types map[string]string
	long  map[string]bool
	// busy is the server's busy threshold, read before the run (script.go).
	busy time.Duration

	mu       sync.Mutex
	user     *aclUser   // the run's, once Guard made it
	conns    []net.Conn // the lock clients'
	obsConns []net.Conn // the observer's
	dead     bool
}

// New is the backend of the server opts (one of run.Target.Nodes, or its
// Replica) for one run: Target.NewBackend for real servers. It is a
// backend.Follower; the engine has only the replica follow.
func New(run *backend.RealRun, opts *redis.Options) backend.Backend {
	b := &server{run: run, opts: opts}
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
	b.stopCut = context.AfterFunc(run.Ctx, b.interrupt)
	return b
}

// observerOptions are the options of a client outside the gate (the
// backend's readings, the cleanup): the server's own, every call bounded by
// timeout and by the context's deadline, named (Named). go-redis
// ignores a context's deadline unless ContextTimeoutEnabled is set.
func observerOptions(opts *redis.Options, timeout time.Duration) *redis.Options {
	o := *opts
	Named(&o)
	o.PoolSize, o.MaxRetries, o.DisableIdentity = 2, -1, true
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = timeout, timeout, timeout
	o.ContextTimeoutEnabled = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &o
}

// ioContext bounds one exchange with the server: ioTimeout, and the run's
// own context (a signal ends it at once).
func (b *server) ioContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.run.Ctx, ioTimeout)
}

// Addr is the server's address as the user gave it.
func (b *server) Addr() string { return b.opts.Addr }

// ClientOptions are the server's own options with every network call
// bounded, and the run's ACL user once Guard made it. A command parks in
// the gate before it reaches the connection, so the bound counts only the
// server's time.
func (b *server) ClientOptions() *redis.Options {
	o := *b.opts
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = ioTimeout, ioTimeout, ioTimeout
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.user != nil {
		o.Username, o.Password = b.user.name, b.user.pass
		o.CredentialsProvider, o.CredentialsProviderContext, o.StreamingCredentialsProvider = nil, nil, nil
	}
	return &o
}

// network is how the server is reached: "tcp" or "unix".
func (b *server) network() string {
	if b.opts.Network != "" {
		return b.opts.Network
	}
	return "tcp"
}

// Dial opens a connection for a lock client; Kill cuts it.
func (b *server) Dial(ctx context.Context) (net.Conn, error) {
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
func (b *server) connect(ctx context.Context) (net.Conn, error) {
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

// Advance does nothing: a real server has its own clock.
func (b *server) Advance(time.Duration, time.Duration) {}

// Kill cuts every client connection; the gate refuses new commands. The
// server itself is left alone: only this run loses it.
func (b *server) Kill() {
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
func (b *server) interrupt() {
	b.Kill()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.obsConns {
		c.Close()
	}
	b.obsConns = nil
}

// Stop is Kill: this run loses the server until Start.
func (b *server) Stop() { b.Kill() }

// Start lets clients reach the server again and deletes the run's keys
// there: what a restart without persistence leaves. Nothing else on the
// server is touched.
func (b *server) Start() error {
	b.mu.Lock()
	b.dead = false
	b.mu.Unlock()
	ctx, cancel := b.ioContext()
	defer cancel()
	return b.cleanup(ctx, b.obs, nil, false)
}

// Jump cannot move a real server's clock. What a forward jump does to the
// run's keys it can do: each TTL is shortened by d, and a key with less
// than d left is deleted.
func (b *server) Jump(d time.Duration) error {
	ctx, cancel := b.ioContext()
	defer cancel()
	keys := b.run.Keys()
	real := b.run.ToReal(d)
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

// Freeze stops the run's leases while a paced run waits for its presenter
// (backend.Pacer): each of the run's keys with a TTL loses it (PERSIST), and
// thaw gives it back what it had left (PEXPIRE).
func (b *server) Freeze() (thaw func() error, err error) {
	ctx, cancel := b.ioContext()
	defer cancel()
	keys := b.run.Keys()
	left := map[string]time.Duration{}
	for _, k := range keys {
		pttl, err := b.obs.PTTL(ctx, k).Result()
		if err != nil {
			return nil, err
		}
		if pttl > 0 {
			if err := b.obs.Persist(ctx, k).Err(); err != nil {
				return nil, err
			}
			left[k] = pttl
		}
	}
	return func() error {
		ctx, cancel := b.ioContext()
		defer cancel()
		for _, k := range slices.Sorted(maps.Keys(left)) {
			if err := b.obs.PExpire(ctx, k, left[k]).Err(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// Close cuts the run's connections and lets the relay go.
func (b *server) Close() {
	b.stopCut()
	b.Kill()
	b.closeRelay()
	_ = b.obs.Close()
}

func (b *server) pattern() string { return "*" + b.run.Target.Prefix + "*" }

// scanKeys lists the keys that match pattern: at the end of a run, those
// under the run's prefix that its commands did not name (a script may
// write one it did not declare). The fencing counter's key starts with a
// hash tag ("{lockstep:…}:fence"), so the pattern matches the prefix
// anywhere. A thousand at a time: a server may hold millions of keys.
func scanKeys(ctx context.Context, c *redis.Client, pattern string) ([]string, error) {
	var keys []string
	iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	slices.Sort(keys)
	return slices.Compact(keys), iter.Err()
}

// isRedisReply says whether err is a server's error reply (or a nil
// reply) rather than the connection's.
func isRedisReply(err error) bool {
	var re redis.Error
	return errors.Is(err, redis.Nil) || errors.As(err, &re) && !isConnErr(err)
}

// EnvironmentError says why a command's error on the server is the
// environment's and not part of the lesson: a server that refuses the run's
// credentials or database, is loading, out of memory or full, or a
// connection that timed out or that the server broke. Such a run has no
// verdict. Errors the timeline causes (a server it took down, a partition, a
// connection the engine itself closed) are part of the lesson, and so is a
// nil reply.
func (b *server) EnvironmentError(err error) (string, bool) {
	var down *command.NodeDownError
	var cut *command.PartitionError
	var gaveUp *command.GaveUpError
	var unsent *command.NotSentError
	switch {
	case err == nil, errors.Is(err, redis.Nil), errors.Is(err, redis.ErrClosed),
		errors.As(err, &down), errors.As(err, &cut), errors.As(err, &gaveUp), errors.As(err, &unsent):
		return "", false
	case redis.IsAuthError(err):
		return "the server refused the credentials", true
	case redis.IsPermissionError(err) && b.run.Target.NoACL:
		// With the run's ACL user a refusal is the lock's: it asked for
		// what locks may not do (sim.IsRefusal).
		return "the user lacks a permission the lock needs", true
	case redis.HasErrorPrefix(err, "DB index"), redis.HasErrorPrefix(err, "invalid DB index"):
		// (HasErrorPrefix reads past the "ERR " of "ERR DB index is out of
		// range": a prefix with it never matches.)
		return "the server has no such database", true
	case redis.IsLoadingError(err), redis.IsOOMError(err), redis.IsMaxClientsError(err),
		redis.HasErrorPrefix(err, "MISCONF"):
		return "the server cannot serve the run", true
	case isConnErr(err) && !errors.Is(err, net.ErrClosed):
		return "the connection failed", true
	}
	return "", false
}

// isConnErr says whether err is the connection's (as the engine's gate
// tells them apart).
func isConnErr(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.EOF) || errors.As(err, &ne)
}

// Cleanup removes the run's keys from the server and, on the target's
// replica, points it straight at its primary again (promoted or not) — all
// within cleanupTimeout, interruptCleanupTimeout once the run's context is
// cancelled. What it could not do is in the error. Connections are no
// longer cut on a signal from here on: the cleanup has clients of its own.
func (b *server) Cleanup(last []trace.KeyState) error {
	b.stopCut()
	b.closeRelay()
	bound := cleanupTimeout
	if b.run.Ctx.Err() != nil {
		bound = interruptCleanupTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	c := b.closingClient(ctx)
	defer c.Close()
	err := b.cleanup(ctx, c, last, true)
	if t := b.run.Target; t.Replica != nil && b.opts == t.Replica {
		err = errors.Join(err, b.replicateFrom(ctx, c, t.Nodes[0]))
	}
	return errors.Join(err, b.dropRunUser(ctx, c))
}

// closingClient is a client of its own for the end of a run, every call
// bounded by ctx: the observer's connections may have been cut by an
// interruption.
func (b *server) closingClient(ctx context.Context) *redis.Client {
	timeout := ioTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	return redis.NewClient(observerOptions(b.opts, max(timeout, time.Millisecond)))
}

// cleanup deletes the run's keys through c within ctx: those its commands
// named, then, with scan, any other under its prefix. A replica
// (read-only) is skipped: its primary's deletions reach it. When the server
// does not answer, the error names it and the keys the run last saw there.
func (b *server) cleanup(ctx context.Context, c *redis.Client, last []trace.KeyState, scan bool) error {
	if info := c.InfoMap(ctx, "replication"); info.Err() == nil && info.Item("Replication", "role") == "slave" {
		return nil
	}
	keys := b.served(b.run.Keys())
	err := b.del(ctx, c, keys)
	if err == nil && scan {
		var more []string
		if more, err = scanKeys(ctx, c, b.pattern()); err == nil && len(more) > 0 {
			err = b.del(ctx, c, more)
		}
		if err != nil {
			return backend.LeftBehind(fmt.Errorf("clean up %s: %w; the run's named keys are removed, but others under %s may be left there", b.opts.Addr, err, b.run.Target.Prefix))
		}
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
		return backend.LeftBehind(fmt.Errorf("clean up %s: %w; keys under %s may be left there", b.opts.Addr, err, b.run.Target.Prefix))
	}
	return backend.LeftBehind(fmt.Errorf("clean up %s: %w; left there: %s", b.opts.Addr, err, strings.Join(keys, ", ")))
}

// del deletes keys through c: with one DEL, or, on a cluster's master, a
// DEL per key in one round trip (a DEL across slots is refused).
func (b *server) del(ctx context.Context, c *redis.Client, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if len(b.run.Target.Slots) == 0 {
		return c.Del(ctx, keys...).Err()
	}
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.Del(ctx, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Follow points the replica at a relay in front of primary that holds the
// stream for lag, and waits until it has synchronised.
func (b *server) Follow(primary backend.Backend, lag time.Duration) error {
	r, err := newRelay(primary.Addr(), b.run.ToReal(lag))
	if err != nil {
		return err
	}
	b.relay = r
	ctx, cancel := context.WithTimeout(b.run.Ctx, 10*time.Second)
	defer cancel()
	host, port, _ := net.SplitHostPort(r.addr())
	if err := b.obs.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return fmt.Errorf("REPLICAOF on %s: %w", b.opts.Addr, err)
	}
	for {
		info := b.obs.InfoMap(ctx, "replication")
		if info.Err() == nil && info.Item("Replication", "master_link_status") == "up" &&
			info.Item("Replication", "master_sync_in_progress") == "0" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica %s did not sync through the relay: %v", b.opts.Addr, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Pending is how many chunks of the stream the relay still holds.
func (b *server) Pending() int {
	if b.relay == nil {
		return 0
	}
	return b.relay.waiting()
}

// Promote cuts the relay off — what it still held is lost — and makes the
// replica a primary: REPLICAOF NO ONE.
func (b *server) Promote() (int, error) {
	lost := 0
	if b.relay != nil {
		lost = b.relay.waiting()
		b.relay.cutOff()
	}
	ctx, cancel := b.ioContext()
	defer cancel()
	return lost, b.obs.Do(ctx, "REPLICAOF", "NO", "ONE").Err()
}

// Cut ends the stream from a primary that died without promoting the
// replica: Sentinel does (backend.Cutter). What was still on its way is lost.
func (b *server) Cut() int {
	lost := 0
	if b.relay != nil {
		lost = b.relay.waiting()
		b.relay.cutOff()
	}
	return lost
}

// closeRelay cuts the relay off, if any, and waits for its goroutines.
func (b *server) closeRelay() {
	if b.relay != nil {
		b.relay.close()
		b.relay = nil
	}
}

// replicateFrom points the replica straight at its primary again, through c.
func (b *server) replicateFrom(ctx context.Context, c *redis.Client, primary *redis.Options) error {
	return ReplicateFrom(ctx, c, b.opts.Addr, primary)
}

// ReplicateFrom points the replica at replica, which c reaches, straight
// at primary (REPLICAOF host port): the end of every run with a replica,
// and lockstep clean's for a replica a killed run left promoted or
// following a relay that is gone.
func ReplicateFrom(ctx context.Context, c *redis.Client, replica string, primary *redis.Options) error {
	host, port, err := net.SplitHostPort(primary.Addr)
	if err != nil {
		return err
	}
	if _, err := strconv.Atoi(port); err != nil {
		return fmt.Errorf("primary address %q: %w", primary.Addr, err)
	}
	if err := c.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		return fmt.Errorf("point the replica %s back at %s (REPLICAOF %s %s): %w", replica, primary.Addr, host, port, err)
	}
	return nil
}

var _ backend.Follower = (*server)(nil)
var _ backend.TimeHolder = (*server)(nil)
