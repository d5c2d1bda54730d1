package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// This file is where the invariants are judged: each invariant is one file
// of package invariant; the world makes each one's Check for the run
// (newJudge), shows every check each observation from one place
// (World.Observe), and records what they find broken (violate). What the
// checks read of the world is judgeView's.

// Observe shows every invariant's check an observation, and records each
// violation they find, right after the event that caused it.
func (w *World) Observe(o invariant.Observation) {
	v := judgeView{w}
	for i, c := range w.Judge.Checks {
		for _, reason := range c.Observe(v, o) {
			w.violate(w.Judge.Verdicts[i].Invariant, reason)
		}
	}
}

// violate records a violation right after the event that caused it.
func (w *World) violate(inv string, text text.Text) {
	text = w.Names.CanonText(text)
	step := w.Record(trace.Event{Kind: trace.KindViolation, Invariant: inv, Text: text, Short: narrate.Same("✗ " + inv)})
	w.Judge.Broke(inv, step, w.Now, text)
}

// judgeView is what the invariants' checks read of the world.
type judgeView struct{ w *World }

func (v judgeView) Now() time.Duration { return v.w.Now }

// Clients lists the clients' facts, in a list the judge reuses: a check
// reads it during its Observe only.
func (v judgeView) Clients() []invariant.Client {
	j := &v.w.Judge
	j.Clients = j.Clients[:0]
	for _, c := range v.w.Clients {
		j.Clients = append(j.Clients, c.Facts())
	}
	return j.Clients
}

// LockKeyUp says whether the lock's key is on some server that is up: a
// liveness break with it there is an orphaned lock; without it, the
// waiters' attempts fail on a free lock.
func (v judgeView) LockKeyUp() bool {
	for _, srv := range v.w.Fleet.Servers {
		if _, ok := model.FindKey(srv.Keys, v.w.Setup.Key); ok && srv.Up {
			return true
		}
	}
	return false
}

func newJudge(s invariant.Settings) model.Judge {
	var j model.Judge
	for _, inv := range invariant.All() {
		j.Verdicts = append(j.Verdicts, trace.Verdict{Invariant: inv.Info().ID})
		j.Checks = append(j.Checks, inv.New(s))
	}
	return j
}
