package sim

import (
	"context"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"
)

// This file waits for the running actors: drain handles messages until none
// runs (in a bubble the Go runtime says when; on real servers the wall clock
// does, drainReal), and the stall bound (WithStallTimeout) gives up lock code
// that sends nothing for that long, naming who it gave up.

// WithStallTimeout sets the stall bound of the runs started with ctx: how
// long lock code may go without a message of the wall clock before the run
// gives it up (10 s by default).
func WithStallTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, engine.StallKey{}, d)
}
