package sentinel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// readyPoll is how often WaitReady asks the Sentinels.
const readyPoll = 50 * time.Millisecond

// WaitReady waits until every Sentinel of the group is ready to fail name
// over: it sees the master up, knows at least replicas replicas that are
// up and in sync with their master (master-link-status ok), and knows
// every other Sentinel of the group, up. The Sentinels find the replicas
// at once (in the master's INFO), and each other through hello messages
// on the master's __sentinel__:hello channel: each Sentinel speaks there
// every two seconds, the first time two seconds after SENTINEL MONITOR, so
// a group of fresh Sentinels is ready a little over two seconds after
// Monitor. When ctx ends first, the error says what was still missing.
//
// After this Group's Monitor, WaitReady also waits until the Sentinels
// would reconnect to the master at once (one ping-period, 1 s unless tuned,
// and one tick of their timer after Monitor). A master that becomes
// unreachable sooner is seen down, then up again for a moment when the
// Sentinel's reconnection is allowed (-sdown, -odown, which a failover in
// progress survives), then down again.
func (g *Group) WaitReady(ctx context.Context, name string, replicas int) error {
	ids, err := g.ids(ctx)
	if err != nil {
		return err
	}
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	var last []string // what was missing at the last look
	for {
		missing, err := g.missing(ctx, name, replicas, ids)
		switch {
		case err != nil && ctx.Err() != nil && last != nil:
			return notReady(ctx, name, last) // the deadline came during a look
		case err != nil:
			return err
		case len(missing) == 0 && g.settled(name):
			return nil
		case len(missing) == 0:
			missing = []string{"less than a ping-period since Monitor"}
		}
		last = missing
		select {
		case <-ctx.Done():
			return notReady(ctx, name, last)
		case <-tick.C:
		}
	}
}

func notReady(ctx context.Context, name string, missing []string) error {
	return fmt.Errorf("sentinel: %s not ready: %s: %w", name, strings.Join(missing, "; "), context.Cause(ctx))
}

// missing is what each Sentinel still lacks, one line per Sentinel that
// lacks something.
func (g *Group) missing(ctx context.Context, name string, replicas int, ids []string) ([]string, error) {
	var missing []string
	err := g.each(func(i int, c *redis.SentinelClient) error {
		lacks, err := g.lacks(ctx, i, c, name, replicas, ids)
		if err != nil {
			return err
		}
		if len(lacks) > 0 {
			missing = append(missing, g.addrs[i]+" "+strings.Join(lacks, ", "))
		}
		return nil
	})
	return missing, err
}

// lacks is what Sentinel i does not know yet about name.
func (g *Group) lacks(ctx context.Context, i int, c *redis.SentinelClient, name string, replicas int, ids []string) ([]string, error) {
	master, err := c.Master(ctx, name).Result()
	if err != nil {
		return nil, g.describe(i, "SENTINEL MASTER "+name, err)
	}
	var lacks []string
	if f := master["flags"]; f != "master" {
		lacks = append(lacks, "sees the master as "+f)
	}
	reps, err := c.Replicas(ctx, name).Result()
	if err != nil {
		return nil, g.describe(i, "SENTINEL REPLICAS "+name, err)
	}
	up := 0
	for _, r := range reps {
		if r["flags"] == "slave" && r["master-link-status"] == "ok" {
			up++
		}
	}
	if up < replicas {
		lacks = append(lacks, fmt.Sprintf("knows %d of %d replicas up and in sync", up, replicas))
	}
	sents, err := c.Sentinels(ctx, name).Result()
	if err != nil {
		return nil, g.describe(i, "SENTINEL SENTINELS "+name, err)
	}
	known := 0
	for j, id := range ids {
		if j != i && slices.ContainsFunc(sents, func(s map[string]string) bool {
			return s["runid"] == id && s["flags"] == "sentinel"
		}) {
			known++
		}
	}
	if known < len(ids)-1 {
		lacks = append(lacks, fmt.Sprintf("knows %d of the %d other Sentinels", known, len(ids)-1))
	}
	return lacks, nil
}

// timerTick is the longest between two runs of a Sentinel's timer (it runs
// 10 to 20 times a second).
const timerTick = 100 * time.Millisecond

// settled is whether a ping-period and a tick have passed since this
// Group's Monitor of name (true for a name monitored elsewhere).
func (g *Group) settled(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	at, ok := g.monitored[name]
	return !ok || time.Since(at) >= g.pingEvery+timerTick
}
