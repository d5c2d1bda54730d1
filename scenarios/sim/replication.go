package sim

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// fleet is the run's servers, as the world keeps them: which serves each
// logical node, the writes on their way from a primary to its replica, and
// a failover under way. Its methods read the servers' keys, carry
// replication, and fail a primary over; what they show goes into the
// world's trace (w).
type fleet struct {
	w *world

	servers []*model.Server
	route   []int // logical node → server serving it
	repl    []model.ReplEntry
	replSeq int // entries ever queued for replication
	// promoting: the first node's primary has died, and Sentinel promotes
	// its replica at promoteAt (its down-after past the death).
	promoting bool
	promoteAt time.Duration
	// sentinel, on a real run whose Sentinels decide the failover
	// (Target.Sentinels), watches the first node's primary; sentinelSaid
	// holds the kinds of their messages the trace has shown, diedAt when
	// the primary died.
	sentinel     backend.SentinelWatch
	sentinelSaid map[string]bool
	diedAt       time.Duration
}

// enqueueReplication schedules the changes a command made on primary p.
func (f *fleet) enqueueReplication(p int, changes []narrate.Change) {
	if f.w.wall.real != nil {
		return // the relay carries real replication
	}
	r := f.servers[p].Replica
	if !f.servers[r].Up {
		return
	}
	for _, ch := range changes {
		f.replSeq++
		e := model.ReplEntry{Seq: f.replSeq, Due: f.w.now + f.servers[r].Lag, Replica: r, Key: ch.Key}
		if ch.Kind == narrate.ChangeDeleted {
			e.Deleted = true
		} else {
			e.State = ch.After
			e.Value = f.servers[p].B.(*backend.Embedded).Stored(ch.Key)
			if ch.After.TTL > 0 {
				e.ExpireAt = f.w.now + ch.After.TTL
			}
		}
		f.repl = append(f.repl, e)
	}
	f.applyReplication()
}

// applyReplication applies every write that is due, in the order the primary
// made them, with one event per replica and moment.
func (f *fleet) applyReplication() {
	var keys []string
	r := -1
	for len(f.repl) > 0 && f.repl[0].Due <= f.w.now {
		e := f.repl[0]
		f.repl = f.repl[1:]
		srv := f.servers[e.Replica]
		if !srv.Up {
			continue
		}
		mem := srv.B.(*backend.Embedded)
		switch left := e.ExpireAt - f.w.now; {
		case e.Deleted || e.ExpireAt > 0 && left <= 0:
			mem.Del(e.Key)
		case e.ExpireAt > 0:
			mem.Put(e.Key, e.Value, left)
		default:
			mem.Put(e.Key, e.Value, 0)
		}
		srv.Keys = f.readKeys(srv, srv.Keys)
		for i := range srv.Keys {
			if srv.Keys[i].Key == e.Key {
				srv.Keys[i].Writer = e.State.Writer
			}
		}
		keys = append(keys, e.Key)
		r = e.Replica
	}
	if r >= 0 {
		f.w.emit(trace.Event{Kind: trace.KindReplicate, Server: f.servers[r].Name,
			Text: narrate.Replicated(f.servers[r].Name, keys), Short: text.Text{EN: "replicated", ZH: "已复制"}})
	}
}

// failover kills the first node's server. A server without a replica (a
// Redlock node) is simply gone. A primary with one dies with the writes it
// had not shipped yet — they are lost — and nothing answers for the node
// until Sentinel, down-after later, promotes the replica (promote): a
// client's command there meanwhile meets a dead server, as it would.
func (f *fleet) failover() {
	dead := f.servers[f.route[0]]
	if !dead.Up {
		return // dead already; Sentinel is on it, or it has no replica
	}
	dead.Up = false
	dead.Keys = nil
	if dead.Replica < 0 {
		dead.B.Stop() // it may come back: Rejoin
		f.w.emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: narrate.NodeDown(dead.Name),
			Short: text.Text{EN: "DOWN", ZH: "宕机"}})
		return
	}
	var lost int
	if f.sentinel != nil {
		lost = f.sentinelDown(dead)
	} else {
		lost = f.cutReplication(dead)
	}
	dead.B.Kill()
	dead.Role = "primary (down)"
	f.promoting, f.promoteAt, f.diedAt = true, f.w.now+f.w.setup.DownAfter, f.w.now
	died := narrate.PrimaryDied(dead.Name, lost, f.w.setup.DownAfter)
	if f.sentinel != nil {
		died = narrate.PrimaryDiedSentinel(dead.Name, lost, f.w.setup.DownAfter)
	}
	f.w.emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: died,
		Short: text.Text{EN: "DOWN", ZH: "宕机"}})
}

// cutReplication ends the stream from dead, a primary that died, and says
// how many writes were still on their way to its replica: they never
// arrive. A replica that replicates by itself (a real one) is made a
// primary now, since its relay is cut (backend.Follower.Promote); no client reaches
// it before Sentinel's promotion routes the node there.
func (f *fleet) cutReplication(dead *model.Server) int {
	lost := 0
	for _, e := range f.repl {
		if e.Replica == dead.Replica {
			lost++
		}
	}
	f.repl = nil
	if fo, ok := f.servers[dead.Replica].B.(backend.Follower); ok {
		n, err := fo.Promote()
		lost = n
		if err != nil {
			f.w.fail(fmt.Errorf("promote %s: %w", f.servers[dead.Replica].Name, err))
		}
	}
	return lost
}

// promote is Sentinel's failover, down-after past the primary's death: the
// Sentinels agree that it is down, elect a leader, and the leader promotes
// the replica with what it had received. The node routes to it from now on:
// a client's next command there reaches it (backend.EmbeddedConn).
func (f *fleet) promote() {
	f.promoting = false
	dead := f.servers[f.route[0]]
	r := f.servers[dead.Replica]
	r.Role, r.Primary, r.Lag = "primary", -1, 0
	f.route[0] = dead.Replica
	f.w.emit(trace.Event{Kind: trace.KindFault, Server: r.Name, Text: narrate.Promoted(dead.Name, r.Name, f.w.setup.DownAfter),
		Short: text.Text{EN: "promoted", ZH: "升为主库"}})
}

// rejoin brings back the first server after a failover. With a promoted
// replica it rejoins as that replica's replica, with the new primary's data;
// without one (a Redlock node) it restarts empty.
func (f *fleet) rejoin() {
	dead := f.servers[0]
	if dead.Up {
		return
	}
	if f.promoting {
		f.w.fail(fmt.Errorf("scenario: rejoin at %s comes before Sentinel promotes %s's replica at %s (down-after %s)",
			narrate.Secs(f.w.now), dead.Name, narrate.Secs(f.promoteAt), narrate.Secs(f.w.setup.DownAfter)))
		return
	}
	if dead.Replica < 0 {
		(&Timeline{w: f.w}).RestartServer(0)
		return
	}
	p := f.route[0]
	primary := f.servers[p]
	mem := f.newMem()
	mem.Advance(f.w.now, 0)
	from := primary.B.(*backend.Embedded)
	for _, k := range primary.Keys {
		mem.Put(k.Key, from.Stored(k.Key), max(k.TTL, 0))
	}
	dead.B = mem
	dead.Up = true
	dead.Role, dead.Primary, dead.Replica, dead.Lag = "replica", p, -1, primary.Lag
	if dead.Lag == 0 {
		dead.Lag = f.w.setup.Lag
	}
	primary.Replica = 0
	dead.Keys = f.readKeys(dead, primary.Keys)
	f.w.emit(trace.Event{Kind: trace.KindFault, Server: dead.Name, Text: narrate.Rejoined(dead.Name, primary.Name),
		Short: text.Text{EN: "rejoins → replica", ZH: "重新加入 → 从库"}})
}
