package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// For a lock on several independent nodes (Redlock), the end of an acquire
// attempt is narrated with how many nodes said OK and whether that is a
// majority. The engine does not ask the lock: it counts what the trace
// shows. An attempt is what the client's goroutines sent between its
// OpAcquire (or OpReenter) note, or the end of its previous attempt, and the
// note that ends it.

// beginAttempt marks where client c's acquire attempt starts in the trace.
func (w *World) beginAttempt(c *model.Client) { c.AttemptFrom = len(w.Trace.Events) }

// quorum ends client c's acquire attempt: on a world of more than one node,
// it emits one event that counts the nodes whose SET … NX on the lock's key
// said OK, against the majority, naming the nodes where the command failed.
// acquired is what the lock said. An attempt that sent no such SET (a lock
// that acquires some other way) is not narrated. When the attempt took
// time, or the lock reports its validity (n), the event says how long it
// took and what was left of the lease.
func (w *World) quorum(c *model.Client, acquired bool, n model.Note) {
	from := min(c.AttemptFrom, len(w.Trace.Events))
	w.beginAttempt(c)
	if len(w.Fleet.Route) < 2 {
		return
	}
	answers := map[string]model.NodeAnswer{}
	first, last := time.Duration(-1), time.Duration(0)
	for _, e := range w.Trace.Events[from:] {
		if e.Kind != trace.KindCommand || !model.ActorOf(e.Actor, c.Name) || !model.IsSetNX(e.Args, c.Key) {
			continue
		}
		if first < 0 {
			first = e.T
		}
		last = e.T
		ans := model.AnswerFailed
		switch {
		case e.Reply == "OK":
			ans = model.AnswerOK
		case e.Reply == "(nil)":
			ans = model.AnswerNo
		}
		// One answer per node: the best it gave in this attempt.
		if prev, seen := answers[e.Server]; !seen || ans > prev {
			answers[e.Server] = ans
		}
	}
	if len(answers) == 0 {
		return
	}
	ok := 0
	var failed []string
	for i := range w.Fleet.Route {
		name := w.Fleet.Servers[w.Fleet.Route[i]].Name
		switch ans, seen := answers[name]; {
		case !seen:
		case ans == model.AnswerOK:
			ok++
		case ans == model.AnswerFailed:
			failed = append(failed, name)
		}
	}
	nodes := len(w.Fleet.Route)
	// The validity decides only for a majority; without one, the time the
	// attempt took is worth saying only when it took any. A majority that
	// fails for want of validity is said once, with the validity.
	majority := ok >= nodes/2+1
	explained := n.HasValidity && majority && n.Validity <= 0 && !acquired
	say := narrate.Quorum(c.Name, ok, nodes, failed, acquired || explained)
	if elapsed := last - first; (n.HasValidity && majority) || elapsed > 0 {
		v := narrate.Validity(w.Setup.TTL, elapsed, n.Validity, n.HasValidity && majority, acquired)
		say = text.Text{EN: say.EN + v.EN, ZH: say.ZH + v.ZH}
	}
	w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: say, Short: narrate.ShortQuorum(ok, nodes)})
}
