package fleet

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Fleet is the run's servers, as the world keeps them: which serves each
// logical node, the writes on their way from a primary to its replica, and
// a failover under way. Its methods read the servers' keys, carry
// replication, and fail a primary over; what they show goes into the
// world's trace (w).
type Fleet struct {
	// Host is the world the servers serve; Setup, its setup.
	Host  Host
	Setup model.Setup

	Servers []*model.Server
	Route   []int // logical node → server serving it
	Repl    []model.ReplEntry
	ReplSeq int // entries ever queued for replication
	// Promoting: the first node's primary has died, and Sentinel promotes
	// its replica at PromoteAt (its down-after past the death).
	Promoting bool
	PromoteAt time.Duration
	// Sentinel, on a real run whose Sentinels decide the failover
	// (Target.Sentinels), watches the first node's primary; sentinelSaid
	// holds the kinds of their messages the trace has shown, diedAt when
	// the primary died.
	Sentinel     backend.SentinelWatch
	sentinelSaid map[string]bool
	diedAt       time.Duration
}

// Host is what a fleet reads of, and tells, the world it serves.
type Host interface {
	Time() time.Duration    // the run's virtual time now
	Emit(trace.Event)       // an event in the trace
	Fail(error)             // the end of the run, with an error
	Real() *backend.RealRun // a real run's clock; nil on embedded servers
	RunErr(err error) error // err, or the interruption of a real run
}

// EnqueueReplication schedules the changes a command made on primary p.
func (f *Fleet) EnqueueReplication(p int, changes []narrate.Change) {
	if f.Host.Real() != nil {
		return // the relay carries real replication
	}
	r := f.Servers[p].Replica
	if !f.Servers[r].Up {
		return
	}
	for _, ch := range changes {
		f.ReplSeq++
		e := model.ReplEntry{Seq: f.ReplSeq, Due: f.Host.Time() + f.Servers[r].Lag, Replica: r, Key: ch.Key}
		if ch.Kind == narrate.ChangeDeleted {
			e.Deleted = true
		} else {
			e.State = ch.After
			e.Value = f.Servers[p].B.(*backend.Embedded).Stored(ch.Key)
			if ch.After.TTL > 0 {
				e.ExpireAt = f.Host.Time() + ch.After.TTL
			}
		}
		f.Repl = append(f.Repl, e)
	}
	f.ApplyReplication()
}

// ApplyReplication applies every write that is due, in the order the primary
// made them, with one event per replica and moment.
func (f *Fleet) ApplyReplication() {
	var keys []string
	r := -1
	for len(f.Repl) > 0 && f.Repl[0].Due <= f.Host.Time() {
		e := f.Repl[0]
		f.Repl = f.Repl[1:]
		srv := f.Servers[e.Replica]
		if !srv.Up {
			continue
		}
		mem := srv.B.(*backend.Embedded)
		switch left := e.ExpireAt - f.Host.Time(); {
		case e.Deleted || e.ExpireAt > 0 && left <= 0:
			mem.Del(e.Key)
		case e.ExpireAt > 0:
			mem.Put(e.Key, e.Value, left)
		default:
			mem.Put(e.Key, e.Value, 0)
		}
		srv.Keys = f.ReadKeys(srv, srv.Keys)
		for i := range srv.Keys {
			if srv.Keys[i].Key == e.Key {
				srv.Keys[i].Writer = e.State.Writer
			}
		}
		keys = append(keys, e.Key)
		r = e.Replica
	}
	if r >= 0 {
		f.Host.Emit(trace.Event{Kind: trace.KindReplicate, Server: f.Servers[r].Name,
			Text: narrate.Replicated(f.Servers[r].Name, keys), Short: text.Text{EN: "replicated", ZH: "已复制"}})
	}
}

// Failover kills the first node's server. A server without a replica (a
// Redlock node) is simply gone. A primary with one dies with the writes it
// had not shipped yet — they are lost — and nothing answers for the node
// until Sentinel, down-after later, promotes the replica (promote): a
// client's command there meanwhile meets a dead server, as it would.
func (f *Fleet) Failover() {
	dead := f.Servers[f.Route[0]]
	if !dead.Up {
		return // dead already; Sentinel is on it, or it has no replica
	}
	dead.Up = false
	dead.Keys = nil
	if dead.Replica < 0 {
		dead.B.Stop() // it may come back: Rejoin
		f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: narrate.NodeDown(dead.Name),
			Short: text.Text{EN: "DOWN", ZH: "宕机"}})
		return
	}
	var lost int
	if f.Sentinel != nil {
		lost = f.sentinelDown(dead)
	} else {
		lost = f.cutReplication(dead)
	}
	dead.B.Kill()
	dead.Role = "primary (down)"
	f.Promoting, f.PromoteAt, f.diedAt = true, f.Host.Time()+f.Setup.DownAfter, f.Host.Time()
	died := narrate.PrimaryDied(dead.Name, lost, f.Setup.DownAfter)
	if f.Sentinel != nil {
		died = narrate.PrimaryDiedSentinel(dead.Name, lost, f.Setup.DownAfter)
	}
	f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: died,
		Short: text.Text{EN: "DOWN", ZH: "宕机"}})
}

// cutReplication ends the stream from dead, a primary that died, and says
// how many writes were still on their way to its replica: they never
// arrive. A replica that replicates by itself (a real one) is made a
// primary now, since its relay is cut (backend.Follower.Promote); no client reaches
// it before Sentinel's promotion routes the node there.
func (f *Fleet) cutReplication(dead *model.Server) int {
	lost := 0
	for _, e := range f.Repl {
		if e.Replica == dead.Replica {
			lost++
		}
	}
	f.Repl = nil
	if fo, ok := f.Servers[dead.Replica].B.(backend.Follower); ok {
		n, err := fo.Promote()
		lost = n
		if err != nil {
			f.Host.Fail(fmt.Errorf("promote %s: %w", f.Servers[dead.Replica].Name, err))
		}
	}
	return lost
}

// Promote is Sentinel's failover, down-after past the primary's death: the
// Sentinels agree that it is down, elect a leader, and the leader promotes
// the replica with what it had received. The node routes to it from now on:
// a client's next command there reaches it (backend.EmbeddedConn).
func (f *Fleet) Promote() {
	f.Promoting = false
	dead := f.Servers[f.Route[0]]
	r := f.Servers[dead.Replica]
	r.Role, r.Primary, r.Lag = "primary", -1, 0
	f.Route[0] = dead.Replica
	f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: r.Name, Text: narrate.Promoted(dead.Name, r.Name, f.Setup.DownAfter),
		Short: text.Text{EN: "promoted", ZH: "升为主库"}})
}

// Rejoin brings back the first server after a failover. With a promoted
// replica it rejoins as that replica's replica, with the new primary's data;
// without one (a Redlock node) it restarts empty.
func (f *Fleet) Rejoin() {
	dead := f.Servers[0]
	if dead.Up {
		return
	}
	if f.Promoting {
		f.Host.Fail(fmt.Errorf("scenario: rejoin at %s comes before Sentinel promotes %s's replica at %s (down-after %s)",
			narrate.Secs(f.Host.Time()), dead.Name, narrate.Secs(f.PromoteAt), narrate.Secs(f.Setup.DownAfter)))
		return
	}
	if dead.Replica < 0 {
		f.RestartServer(0)
		return
	}
	p := f.Route[0]
	primary := f.Servers[p]
	mem := f.NewMem()
	mem.Advance(f.Host.Time(), 0)
	from := primary.B.(*backend.Embedded)
	for _, k := range primary.Keys {
		mem.Put(k.Key, from.Stored(k.Key), max(k.TTL, 0))
	}
	dead.B = mem
	dead.Up = true
	dead.Role, dead.Primary, dead.Replica, dead.Lag = "replica", p, -1, primary.Lag
	if dead.Lag == 0 {
		dead.Lag = f.Setup.Lag
	}
	primary.Replica = 0
	dead.Keys = f.ReadKeys(dead, primary.Keys)
	f.Host.Emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: narrate.Rejoined(dead.Name, primary.Name),
		Short: text.Text{EN: "rejoins → replica", ZH: "重新加入 → 从库"}})
}
