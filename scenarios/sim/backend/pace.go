package backend

import (
	"context"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Pacer paces a run for a live demo: the run shows each event as it happens,
// and no Redis command goes until the presenter says so. On real servers the
// run's clock stands still while it waits, so the lesson's timing holds
// however long the class looks at a step: while it waits, the engine takes
// the expiry of each of the run's keys away (PERSIST) and then gives back
// the TTL it had left (PEXPIRE), which MONITOR shows; the run's start moves
// by the time it waited.
//
// A Pacer rides on the context of a run (WithPacer), as net/http/httptrace's
// ClientTrace does: the run's API stays the same with or without one.
type Pacer struct {
	// Event is called with every event as the run records it, on the
	// run's scheduler goroutine, with the trace's header so far (no events,
	// no verdicts yet).
	Event func(header trace.Trace, e trace.Event)
	// Next is called before each Redis command goes, with the command as
	// redis-cli would show it; the command waits until it returns. An
	// error ends the run with that error.
	Next func(ctx context.Context, actor, command string) error
}

type pacerKey struct{}

// WithPacer returns ctx carrying p: a run on it is paced by p.
func WithPacer(ctx context.Context, p *Pacer) context.Context {
	return context.WithValue(ctx, pacerKey{}, p)
}

// PacerFrom is the Pacer ctx carries (WithPacer), or nil.
func PacerFrom(ctx context.Context) *Pacer {
	p, _ := ctx.Value(pacerKey{}).(*Pacer)
	return p
}

// TimeHolder is a Backend whose server can hold a run's time still: Freeze
// stops the TTL of each of the run's keys there, and the function it returns
// starts them again with what they had left. A real server's backend does;
// an embedded server's clock only moves when the engine moves it.
type TimeHolder interface {
	Freeze() (thaw func() error, err error)
}
