package engine

import (
	"context"
	"errors"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

func (s *ActorSide) report(a *model.Actor, n model.Note) {
	if s.closing.Load() {
		return
	}
	s.Send(model.Msg{A: a, Kind: model.MsgNote, Note: n})
	_ = a.Wait()
}

// pointAt parks the business goroutine before it touches the resource; the
// scheduler performs the read or write when it lets the actor pass.
func (s *ActorSide) pointAt(a *model.Actor, op trace.Op) error {
	if s.closing.Load() {
		return redis.ErrClosed
	}
	s.Send(model.Msg{A: a, Kind: model.MsgPoint, Point: op})
	return a.Wait()
}

// runProgram is the business goroutine of client c.
func (s *ActorSide) runProgram(ctx context.Context, a *model.Actor) {
	c, p := a.Client, a.Client.Prog
	lock := c.Lock
	if p.Prep > 0 {
		s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpPrep})
		if s.sleep(ctx, p.Prep) != nil {
			return
		}
	}
	for attempt := 1; ; attempt++ {
		s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpAcquire})
		ok, err := lock.TryAcquire(ctx)
		if errors.Is(err, redis.ErrClosed) {
			return
		}
		var validity time.Duration
		vr, hasValidity := lock.(lockimpl.ValidityReporter)
		if hasValidity {
			validity = vr.Validity()
		}
		if ok {
			n := model.Note{Kind: model.NoteAcquired, Err: err, Validity: validity, HasValidity: hasValidity}
			if f, isF := lock.(lockimpl.Fencer); isF {
				n.Fence = f.Fence()
			}
			if wt, isW := lock.(lockimpl.Watcher); isW {
				n.Lost = wt.Lost()
			}
			s.report(a, n)
			break
		}
		last := p.Attempts > 0 && attempt >= p.Attempts
		wait := p.RetryWait(attempt, c.Jitter)
		s.report(a, model.Note{Kind: model.NoteRefused, Err: err, Validity: validity, HasValidity: hasValidity, Last: last, Retry: wait})
		if last {
			s.report(a, model.Note{Kind: model.NoteGaveUp})
			return
		}
		if s.sleep(ctx, wait) != nil {
			return
		}
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpRead})
	if s.pointAt(a, trace.OpRead) != nil {
		return
	}
	if p.Reenter && !s.reenter(ctx, a) {
		return
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpWork})
	if p.Fail > 0 {
		// The work throws: no write, and the finally block releases.
		if s.sleep(ctx, p.Fail) != nil {
			return
		}
		s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpFail})
	} else {
		if s.sleep(ctx, p.Work) != nil {
			return
		}
		s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpWrite})
		if s.pointAt(a, trace.OpWrite) != nil {
			return
		}
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpRelease})
	err := lock.Release(ctx)
	if errors.Is(err, redis.ErrClosed) {
		return
	}
	s.report(a, model.Note{Kind: model.NoteReleased, Err: err})
}

// reenter is the nested call of a Reenter program: it takes the lock the
// client already holds, retrying until it gets it, then gives it back. It
// returns false when the run is closing.
func (s *ActorSide) reenter(ctx context.Context, a *model.Actor) bool {
	lock, p := a.Client.Lock, a.Client.Prog
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpReenter})
	for {
		ok, err := lock.TryAcquire(ctx)
		if errors.Is(err, redis.ErrClosed) {
			return false
		}
		if ok {
			s.report(a, model.Note{Kind: model.NoteAcquired, Err: err, Nested: true})
			break
		}
		s.report(a, model.Note{Kind: model.NoteRefused, Err: err, Nested: true})
		if s.sleep(ctx, p.Retry) != nil {
			return false
		}
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpLeave})
	err := lock.Release(ctx)
	if errors.Is(err, redis.ErrClosed) {
		return false
	}
	s.report(a, model.Note{Kind: model.NoteReleased, Err: err, Nested: true})
	return true
}
