package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
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

func pacerFrom(ctx context.Context) *Pacer {
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

// pace waits for the pacer's go-ahead before actor a's command goes, and
// holds the run's time still for as long as it waited.
func (w *World) pace(a *actor) {
	p := w.pacer
	if p == nil || p.Next == nil || a.park != parkGate || a.cmd == nil {
		return
	}
	ctx := w.ctx
	if w.real != nil {
		ctx = w.real.Ctx
	}
	began := time.Now()
	var thaws []func() error
	defer func() {
		for _, thaw := range thaws {
			if err := thaw(); err != nil && w.err == nil {
				w.fail(fmt.Errorf("starting the run's time again: %w", err))
			}
		}
		if w.real != nil && !w.real.start.IsZero() {
			w.real.start = w.real.start.Add(time.Since(began))
		}
	}()
	if w.real != nil && !w.real.start.IsZero() {
		for _, srv := range w.servers {
			h, ok := srv.b.(TimeHolder)
			if !ok || !srv.up || srv.primary >= 0 {
				continue // a replica follows its primary
			}
			thaw, err := h.Freeze()
			if err != nil {
				w.fail(fmt.Errorf("holding the run's time still on %s: %w", srv.name, err))
				return
			}
			thaws = append(thaws, thaw)
		}
	}
	var err error
	w.paced(func() { err = p.Next(ctx, a.name, command.Format(a.cmd)) })
	if err != nil {
		w.fail(err)
	}
}

// paced calls into the pacer. Time there is the presenter's, not a stall
// (World.in); coming back counts as progress, so the run has a whole stall
// timeout after a long wait to reach its next message.
func (w *World) paced(call func()) {
	w.watch.pacing.Add(1)
	defer func() {
		w.watch.pacing.Add(-1)
		w.watch.progress.Add(1)
	}()
	call()
}
