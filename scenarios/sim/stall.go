package sim

import (
	"context"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"
)

// WithStallTimeout sets the stall bound of the runs started with ctx: how
// long lock code may go without a message of the wall clock before the run
// gives it up (10 s by default).
func WithStallTimeout(ctx context.Context, d time.Duration) context.Context {
	return engine.WithStallTimeout(ctx, d)
}
