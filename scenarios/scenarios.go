// Package scenarios is lockstep's catalogue of failure modes: one file per
// classic Redis lock bug, each a scripted timeline, plus the expectation
// matrix that says which implementation survives which bug. The engine that
// plays them lives in scenarios/sim.
//
// Adding a failure mode: write one file with a Scenario (id, titles, setup,
// script), add it to catalogue below, and give it a row in matrix.go.
package scenarios

import (
	"context"
	"embed"
	"fmt"
	"strings"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
)

// Scenario is one failure mode.
type Scenario struct {
	ID      string
	Title   sim.Text
	Summary sim.Text
	// Story is the failure mode told in full, in Markdown (English), for its
	// page in docs/.
	Story string
	// Naive is the implementation this failure mode is about: the default
	// for "lockstep play".
	Naive string
	// Mitigation marks a timeline that shows a fix at work (an operational
	// rule, not an implementation): every implementation is expected to
	// keep every invariant, the naive one included.
	Mitigation bool
	Setup      sim.Setup
	Script     sim.Script
}

// Run plays the scenario against impl on embedded servers.
func (s Scenario) Run(impl lockimpl.Info) (*sim.Trace, error) {
	return s.RunOn(context.Background(), impl, nil)
}

// RunOn plays the scenario against impl on target's real servers, or on
// embedded ones when target is nil.
func (s Scenario) RunOn(ctx context.Context, impl lockimpl.Info, target *sim.Target) (*sim.Trace, error) {
	tr, err := sim.RunOn(ctx, target, s.Setup, s.Script, impl)
	if err != nil {
		return nil, fmt.Errorf("%s × %s: %w", s.ID, impl.Name, err)
	}
	tr.Scenario, tr.Title = s.ID, s.Title
	return tr, nil
}

//go:embed stories/*.md
var stories embed.FS

// story reads the story of failure mode id.
func story(id string) string {
	b, err := stories.ReadFile("stories/" + id + ".md")
	if err != nil {
		panic("scenarios: no story for " + id)
	}
	return string(b)
}

var catalogue = []Scenario{
	setnxNoEX,
	delOther,
	getThenDel,
	failover,
	gcPause,
	leaseTooShort,
	hungHolder,
	reentrantCall,
	redlockRestart,
	redlockDelayedRestart,
	redlockClockJump,
	failoverWait,
}

// All returns the failure modes in teaching order.
func All() []Scenario { return append([]Scenario(nil), catalogue...) }

// IDs returns the scenario ids in teaching order.
func IDs() []string {
	ids := make([]string, len(catalogue))
	for i, s := range catalogue {
		ids[i] = s.ID
	}
	return ids
}

// Lookup finds a scenario by id. The error lists the valid ids.
func Lookup(id string) (Scenario, error) {
	for _, s := range catalogue {
		if s.ID == id {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q; valid: %s", id, strings.Join(IDs(), ", "))
}
