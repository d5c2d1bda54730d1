package fleet

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

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

// StartSentinels has the target's Sentinels watch the run's primary, once
// its replica is in sync.
func (f *Fleet) StartSentinels() error {
	t := f.Host.Real().Target
	if t.Sentinels == nil || f.Route == nil || f.Servers[f.Route[0]].Replica < 0 {
		return nil
	}
	p, r := f.Servers[f.Route[0]], f.Servers[f.Servers[f.Route[0]].Replica]
	if _, ok := r.B.(backend.Cutter); !ok {
		return fmt.Errorf("%s cannot be failed over by Sentinel: its backend cannot cut the stream", r.B.Addr())
	}
	name := backend.SentinelName(t.Prefix)
	// The failover timeout outlasts the run: a replica behind the relay
	// is pointed at the monitored address by Sentinel once it has passed
	// (+fix-slave-config), which would bypass the lag.
	timeout := f.Host.Real().ToReal(f.Setup.Horizon) + time.Minute
	watch, err := t.Sentinels(f.Host.Real(), name, p.B.ClientOptions(), r.B.ClientOptions(), f.Host.Real().ToReal(f.Setup.DownAfter), timeout)
	if err != nil {
		return fmt.Errorf("Sentinel: %w", err)
	}
	f.Sentinel, f.sentinelSaid = watch, map[string]bool{}
	return nil
}

// sentinelDown is the failover on a run whose Sentinels decide it: the
// stream to the replica is cut (its unsent writes are lost), the primary
// goes out of the Sentinels' reach, and the world waits for their word.
func (f *Fleet) sentinelDown(dead *model.Server) int {
	lost := f.Servers[dead.Replica].B.(backend.Cutter).Cut()
	f.Repl = nil
	f.Sentinel.Down()
	return lost
}

// DrainSentinels shows what the Sentinels said since the last look, the
// first of each kind, and routes the first node to the replica when they
// have promoted it.
func (f *Fleet) DrainSentinels() {
	if f.Sentinel == nil {
		return
	}
	for _, e := range f.Sentinel.Events() {
		if f.sentinelSaid[e.Kind] {
			continue
		}
		text, ok := narrate.Sentinel(e.Kind, e.Sentinel, e.Instance, f.serverAt(e.Addr), f.Host.Time()-f.diedAt)
		if !ok {
			continue
		}
		f.sentinelSaid[e.Kind] = true
		f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: f.Servers[f.Route[0]].Name, Text: text, Short: narrate.Same(e.Kind)})
		if e.Kind == "+switch-master" && f.Promoting {
			f.sentinelPromote(e)
		}
	}
}

// sentinelPromote routes the first node to the replica the Sentinels
// promoted; a promotion of anything else fails the run.
func (f *Fleet) sentinelPromote(e backend.SentinelEvent) {
	dead := f.Servers[f.Route[0]]
	r := f.Servers[dead.Replica]
	if o := r.B.ClientOptions(); o == nil || o.Addr != e.Addr {
		f.Host.Fail(fmt.Errorf("Sentinel promoted %s, not the replica %s", e.Addr, r.B.Addr()))
		return
	}
	f.Promoting = false
	r.Role, r.Primary, r.Lag = "primary", -1, 0
	f.Route[0] = dead.Replica
}

// serverAt names the run's server at addr, or says addr when none is.
func (f *Fleet) serverAt(addr string) string {
	for _, s := range f.Servers {
		if o := s.B.ClientOptions(); o != nil && o.Addr == addr {
			return s.Name
		}
	}
	return addr
}
