package sentinel

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// startSentinels starts n Sentinels of the test's own on free ports of
// 127.0.0.1 (redistest.StartSentinel: redis-server CONF --sentinel, each
// with a config file of its own it may rewrite, monitoring nothing), and
// waits until they answer.
func startSentinels(t *testing.T, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = redistest.StartSentinel(t)
	}
	return addrs
}

// group is a Group over addrs, closed when the test ends.
func group(t *testing.T, addrs []string) *Group {
	t.Helper()
	var opts []*redis.Options
	for _, a := range addrs {
		opts = append(opts, &redis.Options{Addr: a, DialTimeout: time.Second})
	}
	g := NewGroup(opts)
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// client is a client of s, closed when the test ends.
func client(t *testing.T, s *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// pair starts a primary holding key=value and a replica of it, through
// relay when relay is set (the relay forwards to the primary: it is made
// from the primary's address), and waits until the replica is in sync.
func pair(t *testing.T, relay func(primary string) string) (primary, replica *redistest.Server) {
	t.Helper()
	primary = redistest.Start(t, "--repl-diskless-sync-delay", "0")
	replica = redistest.Start(t)
	ctx := t.Context()
	if err := client(t, primary).Set(ctx, "key", "value", 0).Err(); err != nil {
		t.Fatal(err)
	}
	from := primary.Addr()
	if relay != nil {
		from = relay(from)
	}
	host, port, _ := net.SplitHostPort(from)
	rc := client(t, replica)
	if err := rc.SlaveOf(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, _ := rc.Info(ctx, "replication").Result()
		if strings.Contains(info, "master_link_status:up") && rc.Get(ctx, "key").Val() == "value" {
			return primary, replica
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not sync from %s:\n%s", from, info)
		}
	}
}

// proxyTo is a Proxy to target, closed when the test ends.
func proxyTo(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := NewProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// runName is a master name of the test's own.
func runName() string { return fmt.Sprintf("lockstep-test-%08x", rand.Uint32()) }
