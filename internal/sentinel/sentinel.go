// Package sentinel lets Redis Sentinel decide a failover on real servers:
// a Group of Sentinels told to monitor a master, their events as they come,
// and the Proxy they monitor instead of the user's primary.
//
// The user's primary must never be demoted and resynchronised by Sentinel
// (a resync wipes its data). So the Sentinels never see it: they monitor a
// Proxy in front of it, under a master name of the run's own. "The primary
// dies" is Proxy.Close: the Sentinels find the master unreachable (+sdown,
// +odown), elect a leader and promote the replica (+switch-master). The
// Proxy stays closed, so no Sentinel reaches the primary to turn it into a
// replica of the new master (+convert-to-slave). Group.Remove forgets the
// master on every Sentinel after the run.
//
// Sentinel's own timing sets a run's time scale (measured on redis-server
// 7.0.15, three Sentinels on loopback, TestMeasureSentinelTimings). After
// the Proxy closes, a Sentinel finds the master down (+sdown) after its
// down-after-milliseconds and a timer tick; the master is objectively down
// (+odown) once the Sentinels have asked each other (every ask-period, 1
// s); the leader promotes the replica within a tenth of a second, and sees
// it a master at its next INFO (every second during a failover), which ends
// the failover (+switch-master). With down-after 100 ms: +sdown 0.12-0.19
// s, +odown 0.9-1.0 s, +switch-master 2.0-2.1 s; with 1 s: 1.0-1.1 s,
// 1.1-1.2 s, 2.2-2.35 s. The Sentinels find each other through the
// master's hello channel, where each speaks every publish-period (2 s),
// the first time one publish-period after SENTINEL MONITOR: WaitReady
// takes 2.05-2.15 s. Tune(QuickTiming()) shortens the periods for
// Sentinels of one's own: WaitReady 1.05-1.1 s, +odown 0.25 s,
// +switch-master 1.35 s.
//
// A replica that replicates from another address than the monitored one (a
// replica behind a relay, while the Sentinels monitor the Proxy) is
// pointed at the monitored address by Sentinel at its first INFO of the
// replica (every info-period, 10 s) once failover-timeout has passed since
// it found the replica (+fix-slave-config): the failover timeout given to
// Monitor must outlast the time until the Proxy closes.
//
// Sentinel promotes the replica with MULTI, REPLICAOF NO ONE, CONFIG
// REWRITE, CLIENT KILL TYPE normal, CLIENT KILL TYPE pubsub, EXEC: every
// client connected to the replica at that moment is disconnected.
package sentinel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Group is a set of Sentinels, addressed together.
type Group struct {
	addrs   []string
	clients []*redis.SentinelClient

	mu        sync.Mutex
	monitored map[string]time.Time // when Monitor told the Sentinels of each name
	pingEvery time.Duration        // the Sentinels' ping-period, 1 s unless tuned
}

// NewGroup makes clients for the Sentinels opts describe (copied: the
// caller's options stay as they are). It connects to none yet.
func NewGroup(opts []*redis.Options) *Group {
	g := &Group{monitored: map[string]time.Time{}, pingEvery: time.Second}
	for _, o := range opts {
		c := *o
		g.addrs = append(g.addrs, c.Addr)
		g.clients = append(g.clients, redis.NewSentinelClient(&c))
	}
	return g
}

// Addrs are the Sentinels' addresses, in the group's order.
func (g *Group) Addrs() []string { return append([]string(nil), g.addrs...) }

// Close closes the clients.
func (g *Group) Close() error {
	var errs []error
	for _, c := range g.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// each runs f on every Sentinel, one after another, and joins the errors,
// each already naming its Sentinel.
func (g *Group) each(f func(i int, c *redis.SentinelClient) error) error {
	var errs []error
	for i, c := range g.clients {
		if err := f(i, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// do sends one command to a Sentinel.
func do(ctx context.Context, c *redis.SentinelClient, args ...any) *redis.Cmd {
	cmd := redis.NewCmd(ctx, args...)
	_ = c.Process(ctx, cmd)
	return cmd
}

// describe names what went wrong at a Sentinel: a server's error reply
// (the server answered, so it is there), or no answer at all.
func (g *Group) describe(i int, what string, err error) error {
	var reply redis.Error
	if errors.As(err, &reply) {
		return fmt.Errorf("sentinel %s: %s: %w", g.addrs[i], what, err)
	}
	return fmt.Errorf("sentinel %s: unreachable (%s): %w", g.addrs[i], what, err)
}

// ids asks every Sentinel its id (SENTINEL MYID).
func (g *Group) ids(ctx context.Context) ([]string, error) {
	ids := make([]string, len(g.clients))
	err := g.each(func(i int, c *redis.SentinelClient) error {
		id, err := do(ctx, c, "sentinel", "myid").Text()
		var reply redis.Error
		switch {
		case errors.As(err, &reply):
			return fmt.Errorf("sentinel %s: not a Sentinel (a redis-server started without --sentinel?): %w", g.addrs[i], err)
		case err != nil:
			return g.describe(i, "SENTINEL MYID", err)
		}
		ids[i] = id
		return nil
	})
	return ids, err
}

// Check makes sure every member answers as a Sentinel (SENTINEL MYID) and
// that no two are the same Sentinel (the same address twice, or two
// Sentinels started from one copied config file, which never find each
// other). Each error names the address that failed.
func (g *Group) Check(ctx context.Context) error {
	if len(g.clients) == 0 {
		return errors.New("sentinel: no Sentinels")
	}
	ids, err := g.ids(ctx)
	if err != nil {
		return err
	}
	seen := map[string]int{}
	var errs []error
	for i, id := range ids {
		if j, ok := seen[id]; ok {
			errs = append(errs, fmt.Errorf("sentinel %s and %s are the same Sentinel (id %s)", g.addrs[j], g.addrs[i], id))
			continue
		}
		seen[id] = i
	}
	return errors.Join(errs...)
}

// Monitor has every Sentinel monitor masterAddr (an IP address and port:
// Sentinel does not resolve names unless told to) under name, with quorum,
// down-after-milliseconds, failover-timeout and parallel-syncs 1. Where a
// Sentinel refuses (the name already taken), every Sentinel of the group
// forgets name again, and the error names the one that refused.
func (g *Group) Monitor(ctx context.Context, name, masterAddr string, quorum int, downAfter, failoverTimeout time.Duration) error {
	host, port, err := net.SplitHostPort(masterAddr)
	if err != nil {
		return fmt.Errorf("sentinel: master address %q: %w", masterAddr, err)
	}
	if net.ParseIP(host) == nil {
		return fmt.Errorf("sentinel: master address %q: Sentinel wants an IP address, not a host name", masterAddr)
	}
	if quorum < 1 || quorum > len(g.clients) {
		return fmt.Errorf("sentinel: quorum %d for %d Sentinels: no failover could ever be agreed", quorum, len(g.clients))
	}
	if downAfter < time.Millisecond || failoverTimeout < time.Millisecond {
		return fmt.Errorf("sentinel: down-after %v and failover-timeout %v: both are whole milliseconds, at least one", downAfter, failoverTimeout)
	}
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	g.mu.Lock()
	g.monitored[name] = time.Now()
	g.mu.Unlock()
	for i, c := range g.clients {
		if err := do(ctx, c, "sentinel", "monitor", name, host, port, quorum).Err(); err != nil {
			err = g.describe(i, "SENTINEL MONITOR "+name, err)
			return errors.Join(err, g.Remove(context.WithoutCancel(ctx), name))
		}
		err := do(ctx, c, "sentinel", "set", name,
			"down-after-milliseconds", ms(downAfter),
			"failover-timeout", ms(failoverTimeout),
			"parallel-syncs", "1").Err()
		if err != nil {
			err = g.describe(i, "SENTINEL SET "+name, err)
			return errors.Join(err, g.Remove(context.WithoutCancel(ctx), name))
		}
	}
	return nil
}

// Tune sets Sentinel's own timing on every Sentinel of the group (SENTINEL
// DEBUG, Redis 7.0 and later): params maps a parameter to its period, e.g.
// "publish-period" (hello messages, which the Sentinels find each other
// by; 2 s unless tuned), "ask-period" (how often a Sentinel that finds the
// master down asks the others, which decides +odown; 1 s), "info-period"
// (INFO to masters and replicas; 10 s). It is meant for Sentinels of one's
// own: the setting is for the whole Sentinel process, every master it
// monitors, and is not saved in its config file (a restart forgets it).
// QuickTiming is a setting that keeps Sentinel's logic and shortens its
// waits.
func (g *Group) Tune(ctx context.Context, params map[string]time.Duration) error {
	args := []any{"sentinel", "debug"}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		args = append(args, k, params[k].Milliseconds())
	}
	err := g.each(func(i int, c *redis.SentinelClient) error {
		if err := do(ctx, c, args...).Err(); err != nil {
			return g.describe(i, "SENTINEL DEBUG (Redis 7.0 and later)", err)
		}
		return nil
	})
	if d, ok := params["ping-period"]; ok && err == nil {
		g.mu.Lock()
		g.pingEvery = d
		g.mu.Unlock()
	}
	return err
}

// QuickTiming is a Tune setting for Sentinels of a test: hello messages
// every 200 ms and the others asked every 100 ms. With it the Sentinels of
// a Group find each other about 0.3 s after Monitor (WaitReady still waits
// a ping-period, 1.1 s), and a master with down-after-milliseconds 100 is
// objectively down about 0.25 s after it becomes unreachable.
func QuickTiming() map[string]time.Duration {
	return map[string]time.Duration{
		"publish-period": 200 * time.Millisecond,
		"ask-period":     100 * time.Millisecond,
	}
}

// Remove has every Sentinel forget name (SENTINEL REMOVE). A Sentinel that
// does not know it is fine: Remove can be called again.
func (g *Group) Remove(ctx context.Context, name string) error {
	g.mu.Lock()
	delete(g.monitored, name)
	g.mu.Unlock()
	return g.each(func(i int, c *redis.SentinelClient) error {
		err := do(ctx, c, "sentinel", "remove", name).Err()
		if err == nil || strings.Contains(err.Error(), "No such master") {
			return nil
		}
		return g.describe(i, "SENTINEL REMOVE "+name, err)
	})
}

// Masters is the master address each Sentinel gives for name (SENTINEL
// GET-MASTER-ADDR-BY-NAME), in the group's order.
func (g *Group) Masters(ctx context.Context, name string) ([]string, error) {
	addrs := make([]string, len(g.clients))
	err := g.each(func(i int, c *redis.SentinelClient) error {
		hp, err := c.GetMasterAddrByName(ctx, name).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return fmt.Errorf("sentinel %s: no master named %s", g.addrs[i], name)
		case err != nil:
			return g.describe(i, "SENTINEL GET-MASTER-ADDR-BY-NAME "+name, err)
		case len(hp) != 2:
			return fmt.Errorf("sentinel %s: GET-MASTER-ADDR-BY-NAME %s answered %q", g.addrs[i], name, hp)
		}
		addrs[i] = net.JoinHostPort(hp[0], hp[1])
		return nil
	})
	return addrs, err
}

// Master is the address of name's master, as every Sentinel of the group
// gives it. Right after a failover they may disagree for a moment (the
// leader switches first, the others when its hello reaches them): then
// the error says who says what, and a caller that waits for the switch
// asks again.
func (g *Group) Master(ctx context.Context, name string) (string, error) {
	addrs, err := g.Masters(ctx, name)
	if err != nil {
		return "", err
	}
	for _, a := range addrs[1:] {
		if a != addrs[0] {
			var says []string
			for i, a := range addrs {
				says = append(says, g.addrs[i]+" says "+a)
			}
			return "", fmt.Errorf("sentinel: the Sentinels disagree on %s's master: %s", name, strings.Join(says, ", "))
		}
	}
	return addrs[0], nil
}

// Watched is what each Sentinel of the group monitors (SENTINEL MASTERS),
// in the group's order: each master name and the address it watches
// there. lockstep clean reads it for the names a killed run left.
func (g *Group) Watched(ctx context.Context) ([]map[string]string, error) {
	out := make([]map[string]string, len(g.clients))
	err := g.each(func(i int, c *redis.SentinelClient) error {
		masters, err := c.Masters(ctx).Result()
		if err != nil {
			return g.describe(i, "SENTINEL MASTERS", err)
		}
		out[i] = map[string]string{}
		for _, m := range masters {
			f := fields(m)
			if f["name"] != "" {
				out[i][f["name"]] = net.JoinHostPort(f["ip"], f["port"])
			}
		}
		return nil
	})
	return out, err
}

// fields reads one master of SENTINEL MASTERS: a map in RESP3, a flat
// list of names and values in RESP2.
func fields(v any) map[string]string {
	f := map[string]string{}
	switch m := v.(type) {
	case map[any]any:
		for k, x := range m {
			f[fmt.Sprint(k)] = fmt.Sprint(x)
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			f[fmt.Sprint(m[i])] = fmt.Sprint(m[i+1])
		}
	}
	return f
}
