package scenarios

import (
	"encoding/json"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/race"
)

// Every trace the engine makes, as play --format json writes it, passes the
// checks lockstep --trace makes on a file: they describe runs as they are.
func TestEveryTraceValidates(t *testing.T) {
	results := sharedCheck(t)
	for i, r := range results {
		if !race.Sampled(i) {
			continue // under the race detector, a sample of the cells
		}
		b, err := json.Marshal(r.Trace)
		if err != nil {
			t.Fatal(err)
		}
		var tr trace.Trace
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatal(err)
		}
		if err := tr.Validate(invariant.IDs()); err != nil {
			t.Errorf("%s × %s: %v", r.Scenario, r.Impl, err)
		}
	}
}
