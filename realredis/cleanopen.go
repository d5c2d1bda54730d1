package realredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/sentinel"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// CleanConfig is where lockstep clean looks: the servers as the runs were
// given them.
type CleanConfig struct {
	// Addrs are the --redis servers, or with Cluster nodes of a Redis
	// Cluster (its masters are looked at).
	Addrs   []string
	Cluster bool
	// Replica is the --replica of the runs, if any.
	Replica string
	// Sentinels are the --sentinel of the runs, if any.
	Sentinels []string
}

// OpenCleaner parses and checks every server as Connect does (reachable,
// authenticated, Redis 5 or later, a primary in Addrs, each a different
// server), without making anything there. Its errors are the user's input:
// a bad address, a server that does not answer.
func OpenCleaner(ctx context.Context, cfg CleanConfig) (*Cleaner, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("no server given")
	}
	primaries, err := cleanPrimaries(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cl := &Cleaner{primary: primaries[0]}
	ids := map[string]string{}
	for _, o := range primaries {
		id, err := checkClean(ctx, o, !cfg.Cluster)
		if err != nil {
			cl.Close()
			return nil, err
		}
		if _, dup := ids[id]; !dup {
			ids[id] = o.Addr
			cl.add(o, true)
		}
	}
	if err := cl.openReplica(ctx, cfg.Replica, ids); err != nil {
		cl.Close()
		return nil, err
	}
	if len(cfg.Sentinels) > 0 {
		g, err := openSentinels(ctx, cfg.Sentinels)
		if err != nil {
			cl.Close()
			return nil, err
		}
		cl.sentinels = g
	}
	return cl, nil
}

// cleanPrimaries are the primaries to look at: the --redis servers, or
// the masters of the cluster (checked as a run checks them).
func cleanPrimaries(ctx context.Context, cfg CleanConfig) ([]*redis.Options, error) {
	if cfg.Cluster {
		t, err := connectCluster(ctx, Config{Addrs: cfg.Addrs, NoACL: true}, &backend.Target{})
		if err != nil {
			return nil, err
		}
		return Servers(t), nil
	}
	var out []*redis.Options
	for _, a := range cfg.Addrs {
		o, err := Parse(a)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// checkClean checks a primary as a run does and returns its run id: a
// --redis server (plain) must be a primary and no cluster's node.
func checkClean(ctx context.Context, o *redis.Options, plain bool) (string, error) {
	id, err := Check(ctx, o)
	if err != nil || !plain {
		return id, err
	}
	if err := checkPrimary(ctx, o); err != nil {
		return "", err
	}
	return id, checkNotCluster(ctx, o)
}

// openReplica adds the replica, a server other than the primaries (ids).
func (cl *Cleaner) openReplica(ctx context.Context, addr string, ids map[string]string) error {
	if addr == "" {
		return nil
	}
	if cl.primary.Network == "unix" {
		return fmt.Errorf("--replica needs the first server over TCP, not the unix socket %s: the replica is pointed back at it by host and port", cl.primary.Addr)
	}
	o, err := Parse(addr)
	if err != nil {
		return err
	}
	id, err := Check(ctx, o)
	if err != nil {
		return err
	}
	if other, dup := ids[id]; dup {
		return fmt.Errorf("the replica %s is the same server as %s", o.Addr, other)
	}
	cl.replica = cl.add(o, false)
	return nil
}

// openSentinels parses and checks the Sentinels as a run does.
func openSentinels(ctx context.Context, addrs []string) (*sentinel.Group, error) {
	var opts []*redis.Options
	for _, a := range addrs {
		o, err := Parse(a)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	g := sentinel.NewGroup(opts)
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if err := g.Check(cctx); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// Servers are the primaries of a target: its Nodes, or its cluster's
// masters, each once.
func Servers(t *backend.Target) []*redis.Options {
	out := t.Nodes
	seen := map[string]bool{}
	for _, r := range t.Slots {
		if !seen[r.Master.Addr] {
			seen[r.Master.Addr] = true
			out = append(out, r.Master)
		}
	}
	return out
}

// replicaLeftover says what an earlier run left of the replica: nothing,
// or the replica to point back at the first server. A replica in a state
// no run of lockstep's leaves it in is an error, and is left alone.
func (cl *Cleaner) replicaLeftover(ctx context.Context) (*Leftover, error) {
	addr := cl.replica.opts.Addr
	r, err := infoFields(ctx, cl.replica.c, "replication")
	if err != nil {
		return nil, fmt.Errorf("INFO replication on the replica %s: %w", addr, err)
	}
	p, err := info(ctx, cl.primary, "replication")
	if err != nil {
		return nil, fmt.Errorf("INFO replication on %s: %w", cl.primary.Addr, err)
	}
	first, from := p["master_replid"], net.JoinHostPort(r["master_host"], r["master_port"])
	l := &Leftover{Kind: KindReplica, Name: addr, Where: addr}
	switch {
	case r["role"] != "slave" && r["master_replid2"] == first:
		l.Detail = fmt.Sprintf("a primary, promoted from a replica of %s (its previous replication id is that server's), as a run killed in its failover leaves it", cl.primary.Addr)
		return l, nil
	case r["role"] != "slave":
		return nil, fmt.Errorf("the replica %s is a primary, and nothing shows it was %s's replica (neither of its replication ids is that server's): lockstep clean leaves it alone. If it is yours to reconfigure, %s on it makes it that server's replica again",
			addr, cl.primary.Addr, replicaOf(cl.primary.Addr))
	case sameEndpoint(ctx, r["master_host"], r["master_port"], cl.primary):
		return nil, nil
	case r["master_replid"] == first && r["master_link_status"] != "up":
		l.Detail = fmt.Sprintf("a replica of %s's data following %s, which does not answer (the relay of a run that was killed)", cl.primary.Addr, from)
		return l, nil
	case r["master_replid"] == first:
		return nil, nil // following the first server through a relay that answers: a run in progress
	}
	return nil, fmt.Errorf("the replica %s is a replica of %s, not of the first server %s: lockstep clean leaves it alone", addr, from, cl.primary.Addr)
}

// Notice is the line a run prints when it starts on servers that hold
// what earlier runs left (the run's own: none yet, it makes them later):
// how many of what, and the lockstep clean command that removes them; ""
// when it finds nothing. It removes nothing: another run may be using
// them. It looks at the ACL users and keys of servers (the run's
// primaries) and replica, and at the master names on the Sentinels, a
// bounded part of each keyspace; what it cannot read it passes over.
func Notice(ctx context.Context, cfg CleanConfig, servers []*redis.Options, replica *redis.Options) string {
	cl := &Cleaner{notice: true}
	for _, o := range servers {
		cl.add(o, true)
	}
	if replica != nil {
		cl.add(replica, false)
	}
	if len(cfg.Sentinels) > 0 {
		if g, err := openSentinels(ctx, cfg.Sentinels); err == nil {
			cl.sentinels = g
		}
	}
	defer cl.Close()
	found, _ := cl.Find(ctx)
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("these servers hold what earlier lockstep runs left (%s). This run leaves them alone, as another run may still be using them; if none is, remove them with: %s",
		Count(found), CleanCommand(cfg))
}

// CleanCommand is the lockstep clean command for the servers of cfg, as
// they were given but for a password, which reads PASSWORD: the line may
// end up in a log.
func CleanCommand(cfg CleanConfig) string {
	flag := "--redis"
	if cfg.Cluster {
		flag = "--cluster"
	}
	args := []string{"lockstep", "clean", flag, shellWord(addrList(cfg.Addrs))}
	if cfg.Replica != "" {
		args = append(args, "--replica", shellWord(hidePassword(cfg.Replica)))
	}
	if len(cfg.Sentinels) > 0 {
		args = append(args, "--sentinel", shellWord(addrList(cfg.Sentinels)))
	}
	return strings.Join(args, " ")
}

func addrList(addrs []string) string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = hidePassword(a)
	}
	return strings.Join(out, ",")
}

// hidePassword writes PASSWORD for the password of a redis://, rediss://
// or unix:// address.
func hidePassword(addr string) string {
	if !strings.Contains(addr, "://") {
		return addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.User == nil {
		return addr
	}
	if _, set := u.User.Password(); !set {
		return addr
	}
	u.User = url.UserPassword(u.User.Username(), "PASSWORD")
	return u.String()
}

// plainWord is a word a POSIX shell, bash, zsh and fish take as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellWord quotes w for a shell where it needs it ([::1]:6379 is a glob
// pattern to zsh, ?db=1 too).
func shellWord(w string) string {
	if plainWord.MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
