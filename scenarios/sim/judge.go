package sim

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// This file is where the invariants are judged: each invariant is one file
// of package invariant; the world makes each one's Check for the run
// (newJudge), shows every check each observation from one place
// (world.observe), and records what they find broken (violate). What the
// checks read of the world is judgeView's.

// judge keeps the verdicts, and each invariant's check, in the order of
// invariant.All.
type judge struct {
	verdicts []trace.Verdict
	checks   []invariant.Check
	// clients is the view's reusable list of the clients' facts.
	clients []invariant.Client
}

func newJudge(s invariant.Settings) judge {
	var j judge
	for _, inv := range invariant.All() {
		j.verdicts = append(j.verdicts, trace.Verdict{Invariant: inv.Info().ID})
		j.checks = append(j.checks, inv.New(s))
	}
	return j
}

// observe shows every invariant's check an observation, and records each
// violation they find, right after the event that caused it.
func (w *world) observe(o invariant.Observation) {
	v := judgeView{w}
	for i, c := range w.judge.checks {
		for _, reason := range c.Observe(v, o) {
			w.violate(w.judge.verdicts[i].Invariant, reason)
		}
	}
}

// violate records a violation right after the event that caused it.
func (w *world) violate(inv string, text text.Text) {
	text = w.names.canonText(text)
	step := w.record(trace.Event{Kind: trace.KindViolation, Invariant: inv, Text: text, Short: narrate.Same("✗ " + inv)})
	w.judge.broke(inv, step, w.now, text)
}

func (j *judge) broke(id string, step int, t time.Duration, reason text.Text) {
	for i := range j.verdicts {
		if j.verdicts[i].Invariant == id && !j.verdicts[i].Broken {
			j.verdicts[i] = trace.Verdict{Invariant: id, Broken: true, Step: step, T: t, Reason: reason}
		}
	}
}

// since is the clock of the first check that keeps one (liveness's: since
// when some client waits for a lock no live client holds), for the
// explorer's state.
func (j *judge) since() (time.Duration, bool) {
	for _, c := range j.checks {
		if t, ok := c.(invariant.Timer); ok {
			return t.Since()
		}
	}
	return 0, false
}

// due is the earliest moment a check waits for (a Timer's Due).
func (j *judge) due() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, c := range j.checks {
		t, ok := c.(invariant.Timer)
		if !ok {
			continue
		}
		if d, on := t.Due(); on && (!found || d < best) {
			best, found = d, true
		}
	}
	return best, found
}

// judgeView is what the invariants' checks read of the world.
type judgeView struct{ w *world }

func (v judgeView) Now() time.Duration { return v.w.now }

// Clients lists the clients' facts, in a list the judge reuses: a check
// reads it during its Observe only.
func (v judgeView) Clients() []invariant.Client {
	j := &v.w.judge
	j.clients = j.clients[:0]
	for _, c := range v.w.clients {
		j.clients = append(j.clients, c.facts())
	}
	return j.clients
}

// LockKeyUp says whether the lock's key is on some server that is up: a
// liveness break with it there is an orphaned lock; without it, the
// waiters' attempts fail on a free lock.
func (v judgeView) LockKeyUp() bool {
	for _, srv := range v.w.fleet.servers {
		if _, ok := findKey(srv.keys, v.w.setup.Key); ok && srv.up {
			return true
		}
	}
	return false
}

// facts is what the invariants read of c.
func (c *client) facts() invariant.Client {
	return invariant.Client{Name: c.name, Key: c.key, Belief: c.belief, Op: c.op,
		Crashed: c.crashed, Paused: c.paused, Hung: c.hung, Reentering: c.reentering}
}
