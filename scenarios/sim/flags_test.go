package sim

import (
	"regexp"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// The engine's errors say what a run needs, not how a front end asks for
// it: the command line adds its flags (internal/cli's play.go), the matrix
// its own words. Before, backend.ErrNeedsReplica ended "(--replica)".
func TestErrorsNameNoFlags(t *testing.T) {
	flag := regexp.MustCompile(`(^|[\s(])--[a-z]`)
	for _, err := range []error{backend.ErrNeedsReplica, backend.ErrEmbeddedOnly, backend.ErrNeedsCluster, backend.ErrNeedsNodes,
		backend.ErrNoBackend, model.ErrOwnKeyEmbedded, model.ErrStalled, ErrNoSuchMove} {
		if flag.MatchString(err.Error()) {
			t.Errorf("%q names a command-line flag", err)
		}
	}
}
