package realredis_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// These tests need a Redis Cluster: LOCKSTEP_CLUSTER, its nodes' addresses
// (comma separated), as .ci/redis-cluster start DIR gives them.
func cluster(t *testing.T) realredis.Config {
	t.Helper()
	addrs := os.Getenv("LOCKSTEP_CLUSTER")
	if addrs == "" {
		t.Skip("skipped: no Redis Cluster. Set LOCKSTEP_CLUSTER=host:port,… (its nodes), e.g. from .ci/redis-cluster start DIR")
	}
	return realredis.Config{Addrs: strings.Split(addrs, ","), Cluster: true}
}

// The cluster lesson on a real cluster: every single-instance cell's
// verdicts are the embedded ones, Redis itself refuses fenced-no-tag's
// script with CROSSSLOT and runs fenced's, Redlock is skipped (it needs
// independent servers), and nothing of the run is left on any node (its
// keys and its ACL users).
func TestRealClusterSlotsAsEmbedded(t *testing.T) {
	cfg := cluster(t)
	s, err := scenarios.Lookup("cluster-slots")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := scenarios.CheckCells([]scenarios.Scenario{s}, lockimpl.All())
	if err != nil {
		t.Fatal(err)
	}
	real, err := scenarios.CheckCellsOn(t.Context(), connect(t, cfg), []scenarios.Scenario{s}, lockimpl.All(), 8)
	if err != nil {
		t.Fatal(err)
	}
	crossSlot := false
	for i, r := range real {
		e := embedded[i]
		if r.Error != "" {
			t.Errorf("%s × %s: %s", r.Scenario, r.Impl, r.Error)
			continue
		}
		in, _ := lockimpl.Lookup(r.Impl)
		if in.Nodes > 1 {
			if r.Skipped == "" {
				t.Errorf("%s on a cluster ran; want it skipped", r.Impl)
			}
			continue
		}
		if !slices.Equal(r.Broken, e.Broken) {
			t.Errorf("%s: broken %v on the cluster, %v embedded", r.Impl, r.Broken, e.Broken)
		}
		for _, ev := range r.Trace.Events {
			if r.Impl == "fenced-no-tag" && strings.Contains(ev.Reply, "CROSSSLOT Keys in request don't hash to the same slot") {
				crossSlot = true
			}
			if r.Impl == "fenced" && strings.Contains(ev.Reply, "CROSSSLOT") {
				t.Errorf("fenced's hash tag was refused: %s → %s", ev.Command, ev.Reply)
			}
		}
	}
	if !crossSlot {
		t.Error("no trace of fenced-no-tag shows the cluster's CROSSSLOT")
	}
	for _, a := range cfg.Addrs {
		o, err := realredis.Parse(a)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(o)
		defer c.Close()
		if keys, err := c.Keys(t.Context(), "*lockstep:*").Result(); err != nil || len(keys) > 0 {
			t.Errorf("%s after the runs: keys %v (%v)", a, keys, err)
		}
		users, err := c.ACLList(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			if strings.Contains(u, "lockstep") {
				t.Errorf("%s after the runs: ACL user %s", a, u)
			}
		}
	}
}

// A cluster node is refused in --redis (its keys would be MOVED) and a
// server outside a cluster in --cluster, each with what to give instead.
func TestRealClusterFlagsAreNotInterchangeable(t *testing.T) {
	cfg := cluster(t)
	_, err := realredis.Connect(t.Context(), realredis.Config{Addrs: cfg.Addrs[:1]})
	if err == nil || !strings.Contains(err.Error(), "is a node of a Redis Cluster: give it in --cluster") {
		t.Errorf("--redis at a cluster node: %v", err)
	}
	plain := os.Getenv("LOCKSTEP_REDIS")
	if plain == "" {
		return
	}
	_, err = realredis.Connect(t.Context(), realredis.Config{Addrs: strings.Split(plain, ",")[:1], Cluster: true})
	if err == nil || !strings.Contains(err.Error(), "is not a node of a Redis Cluster") {
		t.Errorf("--cluster at a plain server: %v", err)
	}
}
