package sim

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// replEntry is one write on its way from a primary to its replica. Redis
// replicates asynchronously: the primary answers the client first and ships
// the write afterwards, so for a while (the lag) the replica does not have it.
type replEntry struct {
	seq      int // order of queuing, for WAIT
	due      time.Duration
	replica  int
	key      string
	deleted  bool
	state    trace.KeyState // as the snapshot showed it
	value    backend.Stored // whole, for the replica
	expireAt time.Duration  // absolute virtual time, 0 for none
}

// enqueueReplication schedules the changes a command made on primary p.
func (w *World) enqueueReplication(p int, changes []narrate.Change) {
	if w.real != nil {
		return // the relay carries real replication
	}
	r := w.servers[p].replica
	if !w.servers[r].up {
		return
	}
	for _, ch := range changes {
		w.replSeq++
		e := replEntry{seq: w.replSeq, due: w.now + w.servers[r].lag, replica: r, key: ch.Key}
		if ch.Kind == narrate.ChangeDeleted {
			e.deleted = true
		} else {
			e.state = ch.After
			e.value = w.servers[p].b.(*backend.Embedded).Stored(ch.Key)
			if ch.After.TTL > 0 {
				e.expireAt = w.now + ch.After.TTL
			}
		}
		w.repl = append(w.repl, e)
	}
	w.applyReplication()
}

// applyReplication applies every write that is due, in the order the primary
// made them, with one event per replica and moment.
func (w *World) applyReplication() {
	var keys []string
	r := -1
	for len(w.repl) > 0 && w.repl[0].due <= w.now {
		e := w.repl[0]
		w.repl = w.repl[1:]
		srv := w.servers[e.replica]
		if !srv.up {
			continue
		}
		mem := srv.b.(*backend.Embedded)
		switch left := e.expireAt - w.now; {
		case e.deleted || e.expireAt > 0 && left <= 0:
			mem.Del(e.key)
		case e.expireAt > 0:
			mem.Put(e.key, e.value, left)
		default:
			mem.Put(e.key, e.value, 0)
		}
		srv.keys = w.readKeys(srv, srv.keys)
		for i := range srv.keys {
			if srv.keys[i].Key == e.key {
				srv.keys[i].Writer = e.state.Writer
			}
		}
		keys = append(keys, e.key)
		r = e.replica
	}
	if r >= 0 {
		w.emit(trace.Event{Kind: trace.KindReplicate, Server: w.servers[r].name,
			Text: narrate.Replicated(w.servers[r].name, keys), Short: text.Text{EN: "replicated", ZH: "已复制"}})
	}
}

// failover kills the first node's server. A server without a replica (a
// Redlock node) is simply gone. A primary with one dies with the writes it
// had not shipped yet — they are lost — and nothing answers for the node
// until Sentinel, down-after later, promotes the replica (promote): a
// client's command there meanwhile meets a dead server, as it would.
func (w *World) failover() {
	dead := w.servers[w.route[0]]
	if !dead.up {
		return // dead already; Sentinel is on it, or it has no replica
	}
	dead.up = false
	dead.keys = nil
	if dead.replica < 0 {
		dead.b.Stop() // it may come back: Rejoin
		w.emit(trace.Event{Kind: trace.KindFault, Server: dead.name, Text: narrate.NodeDown(dead.name),
			Short: text.Text{EN: "DOWN", ZH: "宕机"}})
		return
	}
	var lost int
	if w.sentinel != nil {
		lost = w.sentinelDown(dead)
	} else {
		lost = w.cutReplication(dead)
	}
	dead.b.Kill()
	dead.role = "primary (down)"
	w.promoting, w.promoteAt, w.diedAt = true, w.now+w.setup.DownAfter, w.now
	died := narrate.PrimaryDied(dead.name, lost, w.setup.DownAfter)
	if w.sentinel != nil {
		died = narrate.PrimaryDiedSentinel(dead.name, lost, w.setup.DownAfter)
	}
	w.emit(trace.Event{Kind: trace.KindFault, Server: dead.name, Text: died,
		Short: text.Text{EN: "DOWN", ZH: "宕机"}})
}

// cutReplication ends the stream from dead, a primary that died, and says
// how many writes were still on their way to its replica: they never
// arrive. A replica that replicates by itself (a real one) is made a
// primary now, since its relay is cut (backend.Follower.Promote); no client reaches
// it before Sentinel's promotion routes the node there.
func (w *World) cutReplication(dead *server) int {
	lost := 0
	for _, e := range w.repl {
		if e.replica == dead.replica {
			lost++
		}
	}
	w.repl = nil
	if f, ok := w.servers[dead.replica].b.(backend.Follower); ok {
		n, err := f.Promote()
		lost = n
		if err != nil {
			w.fail(fmt.Errorf("promote %s: %w", w.servers[dead.replica].name, err))
		}
	}
	return lost
}

// promote is Sentinel's failover, down-after past the primary's death: the
// Sentinels agree that it is down, elect a leader, and the leader promotes
// the replica with what it had received. The node routes to it from now on:
// a client's next command there reaches it (backend.EmbeddedConn).
func (w *World) promote() {
	w.promoting = false
	dead := w.servers[w.route[0]]
	r := w.servers[dead.replica]
	r.role, r.primary, r.lag = "primary", -1, 0
	w.route[0] = dead.replica
	w.emit(trace.Event{Kind: trace.KindFault, Server: r.name, Text: narrate.Promoted(dead.name, r.name, w.setup.DownAfter),
		Short: text.Text{EN: "promoted", ZH: "升为主库"}})
}

// rejoin brings back the first server after a failover. With a promoted
// replica it rejoins as that replica's replica, with the new primary's data;
// without one (a Redlock node) it restarts empty.
func (w *World) rejoin() {
	dead := w.servers[0]
	if dead.up {
		return
	}
	if w.promoting {
		w.fail(fmt.Errorf("scenario: rejoin at %s comes before Sentinel promotes %s's replica at %s (down-after %s)",
			narrate.Secs(w.now), dead.name, narrate.Secs(w.promoteAt), narrate.Secs(w.setup.DownAfter)))
		return
	}
	if dead.replica < 0 {
		(&Timeline{w: w}).RestartServer(0)
		return
	}
	p := w.route[0]
	primary := w.servers[p]
	mem := w.newMem()
	mem.Advance(w.now, 0)
	from := primary.b.(*backend.Embedded)
	for _, k := range primary.keys {
		mem.Put(k.Key, from.Stored(k.Key), max(k.TTL, 0))
	}
	dead.b = mem
	dead.up = true
	dead.role, dead.primary, dead.replica, dead.lag = "replica", p, -1, primary.lag
	if dead.lag == 0 {
		dead.lag = w.setup.Lag
	}
	primary.replica = 0
	dead.keys = w.readKeys(dead, primary.keys)
	w.emit(trace.Event{Kind: trace.KindFault, Server: dead.name, Text: narrate.Rejoined(dead.name, primary.name),
		Short: text.Text{EN: "rejoins → replica", ZH: "重新加入 → 从库"}})
}
