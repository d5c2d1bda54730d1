package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Partition cuts the client off from the given servers, by node index (0 is
// redis-1). Nodes the implementation does not have are ignored: a
// single-instance lock has only node 0.
func (c *Client) Partition(nodes ...int) {
	if names := c.mark(&c.c.Cut, nodes); len(names) > 0 {
		c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.Partition(c.c.Name, names),
			Short: text.Text{EN: "✂ " + strings.Join(names, ", "), ZH: "✂ " + strings.Join(names, "、")}})
	}
}

// mark adds the nodes the world has to set and returns their servers' names.
func (c *Client) mark(set *map[int]bool, nodes []int) []string {
	var names []string
	for _, i := range nodes {
		if i < 0 || i >= len(c.w.Fleet.Route) {
			continue
		}
		if *set == nil {
			*set = map[int]bool{}
		}
		(*set)[i] = true
		names = append(names, c.w.Fleet.Servers[c.w.Fleet.Route[i]].Name)
	}
	return names
}

// DropReplies breaks the network one way: the client's commands to the
// given servers reach them and run there, but the replies are lost, and the
// client sees an i/o timeout. Nodes the implementation does not have are
// ignored, as with Partition.
func (c *Client) DropReplies(nodes ...int) {
	if names := c.mark(&c.c.Mute, nodes); len(names) > 0 {
		c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.DropReplies(c.c.Name, names),
			Short: text.Text{EN: "⇥ " + strings.Join(names, ", "), ZH: "⇥ " + strings.Join(names, "、")}})
	}
}

// Heal ends the client's partition, one-way ones too.
func (c *Client) Heal() {
	if len(c.c.Cut) == 0 && len(c.c.Mute) == 0 {
		return
	}
	c.c.Cut, c.c.Mute = nil, nil
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.Heal(c.c.Name),
		Short: text.Text{EN: "healed", ZH: "网络恢复"}})
}

// StopServer takes node i's server down (a crash of the Redis process):
// clients cannot reach it until RestartServer.
func (t *Timeline) StopServer(i int) {
	if t.w.Fleet.StopServer(i) {
		t.w.RunUntil(t.w.Now, false) // a WAIT there fails now
	}
}

// RestartServer brings node i's server back with no data: a restart without
// persistence (no AOF, no RDB). It forgets every key it had — locks and
// counters alike.
func (t *Timeline) RestartServer(i int) { t.w.Fleet.RestartServer(i) }

// Slow makes node i's server slow: from now on every command reaches it d
// late (a delay on the link: a command sent after the node turns fast
// again overtakes one still on its way), while the world runs on.
// d = 0 makes it fast again; a command already on its way keeps its delay.
// A world with fewer servers (a single-instance lock's) has no node i: as
// with a partition, nothing changes there.
func (t *Timeline) Slow(i int, d time.Duration) {
	w := t.w
	if i < 0 || i >= len(w.Fleet.Route) {
		return
	}
	srv := w.Fleet.Node(i)
	srv.Latency = max(d, 0)
	w.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.Slow(srv.Name, srv.Latency),
		Short: narrate.ShortSlow(srv.Latency)})
}

// ClockJump moves node i's server clock forward by d (an NTP step, an
// operator's date command): keys there expire d early.
// ClockBack sets server i's clock back by d (an NTP step back, a manual
// date change): a key with a TTL there now lives d longer than its lease,
// as Redis keeps expiry times by the server's clock. Nothing expires early.
func (t *Timeline) ClockBack(i int, d time.Duration) {
	t.ClockJump(i, -d)
}

func (t *Timeline) ClockJump(i int, d time.Duration) {
	w := t.w
	srv := w.Fleet.Node(i)
	if err := srv.B.Jump(d); err != nil {
		w.Fail(fmt.Errorf("clock jump on %s: %w", srv.Name, err))
		return
	}
	srv.Ahead += d
	before := srv.Keys
	srv.Keys = w.Fleet.ReadKeys(srv, before)
	short := text.Text{EN: "clock +" + narrate.Secs(d), ZH: "时钟 +" + narrate.SecsZH(d)}
	if d < 0 {
		short = text.Text{EN: "clock −" + narrate.Secs(-d), ZH: "时钟 −" + narrate.SecsZH(-d)}
	}
	w.Emit(trace.Event{Kind: trace.KindFault, Server: srv.Name, Text: narrate.ClockJump(srv.Name, d), Short: short})
	for _, k := range before {
		if _, still := model.FindKey(srv.Keys, k.Key); !still {
			w.Emit(trace.Event{Kind: trace.KindExpire, Server: srv.Name, Text: narrate.ExpiredEarly(k, srv.Name),
				Short: text.Text{EN: "expired", ZH: "过期"}})
		}
	}
}
