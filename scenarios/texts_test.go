package scenarios

import (
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/text"
)

// Every text a user reads comes in both languages (docs/DESIGN: "a test
// fails when any user-facing text lacks Chinese"): the implementations'
// entries, the failure modes, the invariants' rules, and every event and
// verdict of every trace of the matrix. text.Missing finds each Text by
// reflection, so a Text field added later is checked too.
func TestEveryTextInBothLanguages(t *testing.T) {
	var missing []string
	for _, in := range lockimpl.All() {
		missing = append(missing, text.Missing("lockimpl "+in.Name, in)...)
	}
	for _, s := range All() {
		missing = append(missing, text.Missing("scenario "+s.ID, s)...)
	}
	missing = append(missing, text.Missing("invariant.Infos()", invariant.Infos())...)
	results := sharedCheck(t)
	for _, r := range results {
		missing = append(missing, text.Missing(r.Scenario+" × "+r.Impl, r)...)
	}
	for _, m := range missing {
		t.Error(m)
	}
}
