package realredis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"

	"github.com/redis/go-redis/v9"
)

// connectCluster builds the target of a Redis Cluster from one or more of
// its nodes (Config.Cluster): it asks the first node that answers for the
// cluster's slots (CLUSTER SLOTS), and checks every master as Connect checks
// a --redis server. A run's lock then runs on the master that serves its
// key's slot (backend.Target.NodeFor); Redis itself refuses a command across
// slots (CROSSSLOT). The node's user, password and TLS carry over to the
// masters it names.
func connectCluster(ctx context.Context, cfg Config, t *backend.Target) (*backend.Target, error) {
	if cfg.Replica != "" {
		return nil, errors.New("--replica goes with --redis, not --cluster: a cluster's masters have replicas of their own")
	}
	var errs []error
	for _, addr := range cfg.Addrs {
		seed, err := Parse(addr)
		if err != nil {
			return nil, err
		}
		slots, err := clusterSlots(ctx, seed)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := checkMasters(ctx, cfg, slots); err != nil {
			return nil, err
		}
		t.Slots = slots
		prefix, err := NewPrefix()
		if err != nil {
			return nil, err
		}
		t.Prefix = prefix
		return t, nil
	}
	return nil, errors.Join(errs...)
}

// clusterSlots reads the cluster's slot ranges and their masters from the
// node seed reaches.
func clusterSlots(ctx context.Context, seed *redis.Options) ([]backend.SlotRange, error) {
	if _, err := Check(ctx, seed); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c := redis.NewClient(checkOptions(seed))
	defer c.Close()
	info, err := infoFields(ctx, c, "cluster")
	if err != nil {
		return nil, fmt.Errorf("INFO cluster on %s: %w", seed.Addr, err)
	}
	if info["cluster_enabled"] != "1" {
		return nil, fmt.Errorf("%s is not a node of a Redis Cluster (cluster_enabled:%s); give it in --redis instead", seed.Addr, info["cluster_enabled"])
	}
	state, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER INFO on %s: %w", seed.Addr, err)
	}
	if !slices.Contains(strings.Split(strings.ReplaceAll(state, "\r", ""), "\n"), "cluster_state:ok") {
		return nil, fmt.Errorf("the cluster of %s is not serving every slot (CLUSTER INFO says no cluster_state:ok)", seed.Addr)
	}
	ranges, err := c.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("CLUSTER SLOTS on %s: %w", seed.Addr, err)
	}
	var out []backend.SlotRange
	for _, r := range ranges {
		if len(r.Nodes) == 0 {
			continue
		}
		m := *seed
		m.Addr = masterAddr(r.Nodes[0].Addr, seed.Addr)
		out = append(out, backend.SlotRange{From: r.Start, To: r.End, Master: &m})
	}
	return out, nil
}

// masterAddr is a master's address as CLUSTER SLOTS gives it; a node that
// announces no IP (an empty host) is on the seed's host.
func masterAddr(addr, seed string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr
	}
	seedHost, _, _ := net.SplitHostPort(seed)
	return net.JoinHostPort(seedHost, port)
}

// checkMasters checks each master once: reachable, a master, and, unless
// the run goes without ACL users, one where lockstep may make them.
func checkMasters(ctx context.Context, cfg Config, slots []backend.SlotRange) error {
	seen := map[string]bool{}
	for _, r := range slots {
		if seen[r.Master.Addr] {
			continue
		}
		seen[r.Master.Addr] = true
		if _, err := Check(ctx, r.Master); err != nil {
			return fmt.Errorf("the master of slots %s: %w", slotRange(r), err)
		}
		if !cfg.NoACL {
			if err := CheckACL(ctx, r.Master); err != nil {
				return err
			}
		}
		if err := checkPrimary(ctx, r.Master); err != nil {
			return err
		}
	}
	return nil
}

func slotRange(r backend.SlotRange) string {
	return strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
}
