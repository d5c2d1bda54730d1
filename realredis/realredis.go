// Package realredis connects lockstep to real Redis servers: it parses the
// addresses the user gave, checks every server before anything runs (reachable,
// authenticated, Lua, a recent enough version), refuses to reconfigure a
// server that was not marked disposable, and picks a key prefix no one else
// uses. The target it returns reaches its servers through the engine's
// real-server backend (scenarios/sim/realserver); the engine (scenarios/sim)
// does the rest.
package realredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// Config is what the command line says about real servers.
type Config struct {
	// Addrs are host:port or redis:// / rediss:// / unix:// URLs (user,
	// password, db).
	// The first serves single-instance locks; Redlock uses the first five.
	Addrs []string
	// Replica is a replica of the first server, for the failover scenario.
	Replica string
	// Disposable allows lockstep to reconfigure the replica (REPLICAOF).
	Disposable bool
	// Second is how long one scenario second lasts; default 30ms.
	Second time.Duration
	// NoACL runs the locks as the user each address names instead of an
	// ACL user made for each run (backend.Target.NoACL): for Redis before 6,
	// or a user who may not run ACL SETUSER.
	NoACL bool
	// Cluster says Addrs are nodes of one Redis Cluster (any of them: the
	// first that answers says where the slots are), not independent
	// servers.
	Cluster bool
	// Sentinels are Redis Sentinels (three, say) that decide the failover
	// lessons' failover instead of lockstep: they need Replica.
	Sentinels []string
}

// DefaultSecond is the default time scale: one scenario second in 30 ms, so
// a 30 s lease is PX 900 and the narrowest margin of a timeline (half a
// scenario second) is 15 ms of real time.
const DefaultSecond = 30 * time.Millisecond

// MinSecond and MaxSecond bound the time scale: below 5 ms a round trip to
// the server is a visible part of a scenario second; above one second a
// five-minute scenario takes more than five minutes.
const (
	MinSecond = 5 * time.Millisecond
	MaxSecond = time.Second
)

// MinVersion is the oldest Redis lockstep runs against: REPLICAOF, SET with
// NX and PX, EVAL.
var MinVersion = [2]int{5, 0}

// checkTimeout bounds every setup check, so an unreachable address is
// reported within it.
const checkTimeout = 2 * time.Second

// Connect parses and checks every server and returns the target to run on.
func Connect(ctx context.Context, cfg Config) (*backend.Target, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("no server given")
	}
	t := &backend.Target{Second: cfg.Second, NewBackend: realserver.New, NoACL: cfg.NoACL}
	if t.Second == 0 {
		t.Second = DefaultSecond
	}
	if t.Second < MinSecond {
		return nil, fmt.Errorf("time scale %s is too fast for real servers; use %s or more per scenario second", t.Second, MinSecond)
	}
	if t.Second > MaxSecond {
		return nil, fmt.Errorf("time scale %s is too slow: a five-minute scenario would take %s; use at most %s per scenario second",
			t.Second, 300*t.Second, MaxSecond)
	}
	if cfg.Cluster {
		return connectCluster(ctx, cfg, t)
	}
	// open parses and checks one server, and makes sure it is not one
	// already given under another address.
	ids := map[string]string{}
	open := func(addr, what string) (*redis.Options, string, error) {
		opts, err := Parse(addr)
		if err != nil {
			return nil, "", err
		}
		id, err := Check(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		if !cfg.NoACL {
			if err := CheckACL(ctx, opts); err != nil {
				return nil, "", err
			}
		}
		if other, dup := ids[id]; dup {
			return nil, "", fmt.Errorf("%s %s is the same server as %s; lockstep needs independent ones", what, opts.Addr, other)
		}
		ids[id] = opts.Addr
		return opts, id, nil
	}
	for _, a := range cfg.Addrs {
		opts, _, err := open(a, "server")
		if err != nil {
			return nil, err
		}
		if err := checkPrimary(ctx, opts); err != nil {
			return nil, err
		}
		if err := checkNotCluster(ctx, opts); err != nil {
			return nil, err
		}
		t.Nodes = append(t.Nodes, opts)
	}
	prefix, err := NewPrefix()
	if err != nil {
		return nil, err
	}
	t.Prefix = prefix
	if cfg.Replica != "" {
		if !cfg.Disposable {
			return nil, fmt.Errorf("the failover scenario reconfigures the replica %s (REPLICAOF) and replaces its data; pass --disposable if it is yours to reconfigure", cfg.Replica)
		}
		if t.Nodes[0].Network == "unix" {
			return nil, fmt.Errorf("--replica needs the first server over TCP, not the unix socket %s: the replica replicates from it (through lockstep's relay) by host and port", t.Nodes[0].Addr)
		}
		opts, id, err := open(cfg.Replica, "the replica")
		if err != nil {
			return nil, err
		}
		if err := checkLease(ctx, t.Nodes[0], opts.Addr, id); err != nil {
			return nil, withClean(err, cfg)
		}
		if err := checkReplica(ctx, opts, t.Nodes[0]); err != nil {
			return nil, withClean(err, cfg)
		}
		release, err := takeLease(ctx, t.Nodes[0], opts.Addr, id, prefix)
		if err != nil {
			return nil, withClean(err, cfg)
		}
		t.OnClose(release)
		t.Replica = opts
	}
	if len(cfg.Sentinels) > 0 {
		opts, err := checkSentinels(ctx, cfg)
		if err != nil {
			return nil, err
		}
		t.Sentinels, t.SentinelSecond = watchSentinels(opts), SentinelSecond
	}
	return t, nil
}

// NewPrefix is a key prefix for one lockstep run: "lockstep:<8 hex digits>:".
func NewPrefix() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "lockstep:" + hex.EncodeToString(b) + ":", nil
}

// Parse reads host:port, [ipv6]:port, or a redis://, rediss:// or unix://
// URL (go-redis's own ParseURL: user, password, database, TLS, socket path).
func Parse(addr string) (*redis.Options, error) {
	if strings.Contains(addr, "://") {
		opts, err := redis.ParseURL(addr)
		if err != nil {
			return nil, fmt.Errorf("server address %q: %w", addr, err)
		}
		return opts, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return nil, fmt.Errorf("server address %q: want host:port, [ipv6]:port, redis://[user:password@]host:port[/db] or unix://[:password@]/path[?db=N]", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("server address %q: port %q is not a number from 1 to 65535", addr, port)
	}
	return &redis.Options{Network: "tcp", Addr: addr}, nil
}

// Check connects to one server and makes sure lockstep can run there. It
// returns the server's run id, which tells servers apart.
func Check(ctx context.Context, opts *redis.Options) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c := redis.NewClient(checkOptions(opts))
	defer c.Close()
	addr := opts.Addr
	if err := c.Ping(ctx).Err(); err != nil {
		return "", setupError(err, opts)
	}
	info, err := infoFields(ctx, c, "server")
	if err != nil {
		return "", fmt.Errorf("INFO on %s: %w", addr, err)
	}
	version := info["redis_version"]
	if !atLeast(version, MinVersion) {
		return "", fmt.Errorf("%s runs Redis %q; lockstep needs %d.%d or later", addr, version, MinVersion[0], MinVersion[1])
	}
	if err := c.Eval(ctx, "return 1", nil).Err(); err != nil {
		return "", fmt.Errorf("%s does not run Lua scripts (EVAL): %v", addr, err)
	}
	id := info["run_id"]
	if id == "" {
		id = addr
	}
	return id, nil
}

// CheckACL makes sure lockstep can make the ACL user that keeps a run's
// locks to the run's keys on the server opts reaches (realserver.ProbeACL):
// Redis 6 or later, and a user who may run ACL SETUSER and ACL DELUSER.
// The error says how to get there, or to go without (--no-acl).
func CheckACL(ctx context.Context, opts *redis.Options) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c := redis.NewClient(checkOptions(opts))
	defer c.Close()
	err := realserver.ProbeACL(ctx, c)
	if err == nil {
		return nil
	}
	const why = "lockstep runs each lock as an ACL user made for the run and allowed only the run's keys, so that Redis itself refuses a lock that touches anything else"
	const without = "or pass --no-acl to run the locks as the user you gave (lockstep then checks each command's name and keys itself, but cannot see what a Lua script does)"
	switch {
	case redis.HasErrorPrefix(err, "unknown command"), redis.HasErrorPrefix(err, "unknown subcommand"):
		return fmt.Errorf("%s has no ACLs (Redis before 6: %v); %s. Use Redis 6 or later, %s", opts.Addr, err, why, without)
	case redis.IsPermissionError(err):
		return fmt.Errorf("the user you connect to %s as may not make ACL users (%v); %s. Connect as a user who may (redis://USER:PASSWORD@%s, with +acl|setuser +acl|deluser +command|info), %s",
			opts.Addr, err, why, opts.Addr, without)
	}
	return fmt.Errorf("make a probe ACL user on %s: %w; %s", opts.Addr, err, without)
}

// setupError says why the server opts reaches refused the first command of
// a setup check: go-redis's own classes of errors (IsAuthError,
// IsPermissionError) and the prefixes of the server's error replies
// (HasErrorPrefix, which reads past a leading "ERR "), not the words of the
// message.
func setupError(err error, opts *redis.Options) error {
	addr := opts.Addr
	switch {
	case redis.HasErrorPrefix(err, "NOAUTH"):
		return fmt.Errorf("%s requires a password: give it as redis://[user]:password@%s", addr, addr)
	case redis.IsAuthError(err),
		redis.HasErrorPrefix(err, "invalid password"), // Redis before 6: ERR invalid password
		redis.HasErrorPrefix(err, "Client sent AUTH, but no password is set"):
		return fmt.Errorf("authentication to %s failed: %v", addr, err)
	case redis.IsPermissionError(err):
		return fmt.Errorf("the user given for %s may not run lockstep's checks (PING, INFO, EVAL): %v", addr, err)
	case redis.HasErrorPrefix(err, "DB index"), redis.HasErrorPrefix(err, "invalid DB index"):
		return fmt.Errorf("%s has no database %d: %v", addr, opts.DB, err)
	}
	return fmt.Errorf("connect %s: %w", addr, err)
}

// infoFields reads one INFO section of c's server as fields, with
// go-redis's own parser (InfoMap).
func infoFields(ctx context.Context, c *redis.Client, section string) (fields map[string]string, err error) {
	defer func() {
		// go-redis's parser files every field under the "# Section"
		// header above it; a reply with a field before any header (no
		// Redis sends one, a server posing as Redis might) makes it panic.
		if r := recover(); r != nil {
			fields, err = nil, fmt.Errorf("INFO %s: a reply without section headers, not Redis's (%v)", section, r)
		}
	}()
	sections, err := c.InfoMap(ctx, section).Result()
	if err != nil {
		return nil, err
	}
	// One section asked, one given back, under its header's name ("#
	// Server", "# Replication").
	fields = map[string]string{}
	for _, s := range sections {
		maps.Copy(fields, s)
	}
	return fields, nil
}

// atLeast compares a "major.minor.patch" version with min.
func atLeast(version string, min [2]int) bool {
	parts := strings.Split(version, ".")
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > min[0] || major == min[0] && minor >= min[1]
}
