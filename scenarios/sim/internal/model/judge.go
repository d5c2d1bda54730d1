package model

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// Judge keeps the verdicts, and each invariant's check, in the order of
// invariant.All.
type Judge struct {
	Verdicts []trace.Verdict
	Checks   []invariant.Check
	// Clients is the view's reusable list of the clients' facts.
	Clients []invariant.Client
}

func (j *Judge) Broke(id string, step int, t time.Duration, reason text.Text) {
	for i := range j.Verdicts {
		if j.Verdicts[i].Invariant == id && !j.Verdicts[i].Broken {
			j.Verdicts[i] = trace.Verdict{Invariant: id, Broken: true, Step: step, T: t, Reason: reason}
		}
	}
}

// Since is the clock of the first check that keeps one (liveness's: since
// when some client waits for a lock no live client holds), for the
// explorer's state.
func (j *Judge) Since() (time.Duration, bool) {
	for _, c := range j.Checks {
		if t, ok := c.(invariant.Timer); ok {
			return t.Since()
		}
	}
	return 0, false
}

// Due is the earliest moment a check waits for (a Timer's Due).
func (j *Judge) Due() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, c := range j.Checks {
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

// Facts is what the invariants read of c.
func (c *Client) Facts() invariant.Client {
	return invariant.Client{Name: c.Name, Key: c.Key, Belief: c.Belief, Op: c.Op, Claim: c.Claim, Reads: c.Prog.Read,
		Crashed: c.Crashed, Paused: c.Paused, Hung: c.Hung, Reentering: c.Reentering}
}
