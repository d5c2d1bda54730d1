package realredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// checkReplica makes sure the server given as --replica is a replica of the
// first server before anything touches it: the failover scenario
// reconfigures it (REPLICAOF) and replaces its data, which is only fair to a
// server that already mirrors the first one. It is that server's replica when
// its INFO names the first server as its master (host and port, the host
// compared by address), or when the two share a replication id (a primary
// reached over a unix socket, or under another name).
func checkReplica(ctx context.Context, replica, primary *redis.Options) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	r, err := info(ctx, replica, "replication")
	if err != nil {
		return fmt.Errorf("INFO replication on the replica %s: %w", replica.Addr, err)
	}
	p, err := info(ctx, primary, "replication")
	if err != nil {
		return fmt.Errorf("INFO replication on %s: %w", primary.Addr, err)
	}
	if role := r["role"]; role != "slave" {
		if r["master_replid2"] == p["master_replid"] {
			return leftover(fmt.Errorf("the replica %s is not a replica but a primary (role:%s), promoted from a replica of %s (its previous replication id is that server's), as a run killed in its failover leaves it",
				replica.Addr, role, primary.Addr))
		}
		return fmt.Errorf("the replica %s is not a replica but a primary (role:%s); lockstep refuses to make it one, which would replace its data. Give a replica of %s (%s)",
			replica.Addr, role, primary.Addr, replicaOf(primary.Addr))
	}
	if id := r["master_replid"]; id != "" && id == p["master_replid"] {
		return nil
	}
	host, port := r["master_host"], r["master_port"]
	if sameEndpoint(ctx, host, port, primary) {
		return nil
	}
	return fmt.Errorf("the replica %s is a replica of %s, not of the first server %s; lockstep refuses to reconfigure it",
		replica.Addr, net.JoinHostPort(host, port), primary.Addr)
}

// sameEndpoint says whether host:port, as a replica names its master, is the
// server opts reaches over TCP.
func sameEndpoint(ctx context.Context, host, port string, opts *redis.Options) bool {
	if opts.Network == "unix" {
		return false
	}
	h, p, err := net.SplitHostPort(opts.Addr)
	if err != nil || p != port {
		return false
	}
	if h == host {
		return true
	}
	a, err1 := net.DefaultResolver.LookupHost(ctx, h)
	b, err2 := net.DefaultResolver.LookupHost(ctx, host)
	if err1 != nil || err2 != nil {
		return false
	}
	return slices.ContainsFunc(a, func(x string) bool { return slices.Contains(b, x) })
}

// info reads one INFO section of the server opts reaches as fields.
func info(ctx context.Context, opts *redis.Options, section string) (map[string]string, error) {
	c := redis.NewClient(checkOptions(opts))
	defer c.Close()
	return infoFields(ctx, c, section)
}

// replicaOf is the command that makes a server a replica of the server at
// addr: REPLICAOF host port, the host without the brackets of an IPv6
// address.
func replicaOf(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "REPLICAOF " + addr
	}
	return "REPLICAOF " + host + " " + port
}

// checkOptions are opts for a setup check: every call bounded, no retries,
// the connection named as lockstep's own (realserver.Named).
func checkOptions(opts *redis.Options) *redis.Options {
	o := *opts
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = checkTimeout, checkTimeout, checkTimeout
	o.MaxRetries, o.DialerRetries, o.PoolSize, o.DisableIdentity = -1, 1, 1, true
	o.ContextTimeoutEnabled = true // go-redis ignores a context's deadline without it
	realserver.Named(&o)
	return &o
}

// The lease on a replica: one lockstep run at a time may reconfigure it. It
// is a lock in its own right — SET NX PX with a unique value on the first
// server, renewed while the run goes on, released with compare-and-delete —
// on the wall clock, so that a run that was killed frees the replica within
// leaseTTL.
const (
	leaseTTL   = 30 * time.Second
	leaseRenew = leaseTTL / 3
)

var (
	leaseRenewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	leaseFreeScript  = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
)

// LeaseKey is the key on the first server that says which run holds the
// replica whose run id is replicaID.
func LeaseKey(replicaID string) string { return "lockstep:replica-lease:" + replicaID }

// inUse is the error for a replica another run holds the lease on.
func inUse(replica, holder, key, primary string) error {
	return leftover(fmt.Errorf("the replica %s is in use by another lockstep run (%s): two runs on one replica spoil each other's failover. Wait for it to finish; a run that was killed frees it within %s (key %s on %s)",
		replica, text.Clean(holder), leaseTTL, key, primary))
}

// leftoverError is a check that failed on what a killed run may have
// left; Connect adds the lockstep clean command that removes it.
type leftoverError struct{ err error }

func (e *leftoverError) Error() string { return e.err.Error() }
func (e *leftoverError) Unwrap() error { return e.err }

func leftover(err error) error { return &leftoverError{err} }

// withClean adds to a leftoverError the command that removes what is left.
func withClean(err error, cfg Config) error {
	var lo *leftoverError
	if !errors.As(err, &lo) {
		return err
	}
	return fmt.Errorf("%w; if a run that was killed left it so, this puts it right: %s", err,
		CleanCommand(CleanConfig{Addrs: cfg.Addrs, Replica: cfg.Replica, Sentinels: cfg.Sentinels}))
}

// checkLease says which run holds the lease on the replica, if one does,
// before anything else looks at the replica: in the middle of that run's
// failover it is a primary, and only the lease tells why.
func checkLease(ctx context.Context, primary *redis.Options, replica, replicaID string) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c := redis.NewClient(checkOptions(primary))
	defer c.Close()
	key := LeaseKey(replicaID)
	holder, err := c.Get(ctx, key).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil
	case err != nil:
		return fmt.Errorf("read the lease on the replica %s (GET %s on %s): %w", replica, key, primary.Addr, err)
	}
	return inUse(replica, holder, key, primary.Addr)
}

// checkPrimary refuses a server given in --redis that is a replica: the
// locks' writes there fail (READONLY), and its data is its primary's.
func checkPrimary(ctx context.Context, opts *redis.Options) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	r, err := info(ctx, opts, "replication")
	if err != nil {
		return fmt.Errorf("INFO replication on %s: %w", opts.Addr, err)
	}
	if r["role"] == "slave" {
		return fmt.Errorf("%s is a replica of %s: the locks' writes there would fail (READONLY). Give primaries in --redis; a replica of the first server goes in --replica",
			opts.Addr, net.JoinHostPort(r["master_host"], r["master_port"]))
	}
	return nil
}

// checkNotCluster refuses a node of a Redis Cluster given in --redis: a
// key of a slot it does not serve would be refused (MOVED).
func checkNotCluster(ctx context.Context, opts *redis.Options) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if c, err := info(ctx, opts, "cluster"); err == nil && c["cluster_enabled"] == "1" {
		return fmt.Errorf("%s is a node of a Redis Cluster: give it in --cluster, which runs each lock on the master of its key's slot (in --redis its keys would be refused, MOVED)", opts.Addr)
	}
	return nil
}

// takeLease takes the replica for this run, or says which run has it. The
// release it returns stops the renewal and deletes the lease if it is still
// this run's.
func takeLease(ctx context.Context, primary *redis.Options, replica, replicaID, prefix string) (func() error, error) {
	key := LeaseKey(replicaID)
	host, _ := os.Hostname()
	value := fmt.Sprintf("%s pid %d on %s since %s", strings.TrimSuffix(prefix, ":"), os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	c := redis.NewClient(checkOptions(primary))
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	ok, err := c.SetNX(cctx, key, value, leaseTTL).Result()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("take the lease on the replica %s (SET %s NX on %s): %w", replica, key, primary.Addr, err)
	}
	if !ok {
		holder, _ := c.Get(cctx, key).Result()
		c.Close()
		return nil, inUse(replica, holder, key, primary.Addr)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(leaseRenew)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
				_ = leaseRenewScript.Run(rctx, c, []string{key}, value, leaseTTL.Milliseconds()).Err()
				cancel()
			}
		}
	})
	var once sync.Once
	var ferr error
	return func() error {
		once.Do(func() {
			close(stop)
			wg.Wait()
			fctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
			defer cancel()
			if err := leaseFreeScript.Run(fctx, c, []string{key}, value).Err(); err != nil && !errors.Is(err, redis.Nil) {
				ferr = fmt.Errorf("release the lease on the replica %s (key %s on %s): %w", replica, key, primary.Addr, err)
			}
			ferr = errors.Join(ferr, c.Close())
		})
		return ferr
	}, nil
}
