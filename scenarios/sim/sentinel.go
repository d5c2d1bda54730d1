package sim

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is a real run's failover by Redis Sentinel
// (backend.Target.Sentinels): the Sentinels watch the first server, and
// when the timeline kills it they decide the failover themselves, in real
// time. The engine tells them nothing but that the primary is gone
// (backend.SentinelWatch.Down), shows what they say (+sdown, +odown,
// +switch-master) as events (narrate.Sentinel), and routes the first node
// to the replica once they have promoted it, as a Sentinel-aware client
// does. Lessons without a replica, and Redlock, do not involve them.

// sentinelPoll is how often, in virtual time, a world waiting for the
// Sentinels' failover looks at what they said.
const sentinelPoll = 100 * time.Millisecond

// startSentinels has the target's Sentinels watch the run's primary, once
// its replica is in sync.
func (w *World) startSentinels() error {
	t := w.real.Target
	if t.Sentinels == nil || w.route == nil || w.servers[w.route[0]].replica < 0 {
		return nil
	}
	p, r := w.servers[w.route[0]], w.servers[w.servers[w.route[0]].replica]
	if _, ok := r.b.(backend.Cutter); !ok {
		return fmt.Errorf("%s cannot be failed over by Sentinel: its backend cannot cut the stream", r.b.Addr())
	}
	name := backend.SentinelName(t.Prefix)
	// The failover timeout outlasts the run: a replica behind the relay
	// is pointed at the monitored address by Sentinel once it has passed
	// (+fix-slave-config), which would bypass the lag.
	timeout := w.real.ToReal(w.setup.Horizon) + time.Minute
	watch, err := t.Sentinels(w.real, name, p.b.ClientOptions(), r.b.ClientOptions(), w.real.ToReal(w.setup.DownAfter), timeout)
	if err != nil {
		return fmt.Errorf("Sentinel: %w", err)
	}
	w.sentinel, w.sentinelSaid = watch, map[string]bool{}
	return nil
}

// sentinelDown is the failover on a run whose Sentinels decide it: the
// stream to the replica is cut (its unsent writes are lost), the primary
// goes out of the Sentinels' reach, and the world waits for their word.
func (w *World) sentinelDown(dead *server) int {
	lost := w.servers[dead.replica].b.(backend.Cutter).Cut()
	w.repl = nil
	w.sentinel.Down()
	return lost
}

// drainSentinels shows what the Sentinels said since the last look, the
// first of each kind, and routes the first node to the replica when they
// have promoted it.
func (w *World) drainSentinels() {
	if w.sentinel == nil {
		return
	}
	for _, e := range w.sentinel.Events() {
		if w.sentinelSaid[e.Kind] {
			continue
		}
		text, ok := narrate.Sentinel(e.Kind, e.Sentinel, e.Instance, w.serverAt(e.Addr), w.now-w.diedAt)
		if !ok {
			continue
		}
		w.sentinelSaid[e.Kind] = true
		w.emit(trace.Event{Kind: trace.KindFault, Server: w.servers[w.route[0]].name, Text: text, Short: narrate.Same(e.Kind)})
		if e.Kind == "+switch-master" && w.promoting {
			w.sentinelPromote(e)
		}
	}
}

// sentinelPromote routes the first node to the replica the Sentinels
// promoted; a promotion of anything else fails the run.
func (w *World) sentinelPromote(e backend.SentinelEvent) {
	dead := w.servers[w.route[0]]
	r := w.servers[dead.replica]
	if o := r.b.ClientOptions(); o == nil || o.Addr != e.Addr {
		w.fail(fmt.Errorf("Sentinel promoted %s, not the replica %s", e.Addr, r.b.Addr()))
		return
	}
	w.promoting = false
	r.role, r.primary, r.lag = "primary", -1, 0
	w.route[0] = dead.replica
}

// serverAt names the run's server at addr, or says addr when none is.
func (w *World) serverAt(addr string) string {
	for _, s := range w.servers {
		if o := s.b.ClientOptions(); o != nil && o.Addr == addr {
			return s.name
		}
	}
	return addr
}
