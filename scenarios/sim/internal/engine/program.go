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
		held, err := s.check(ctx, a)
		if errors.Is(err, redis.ErrClosed) {
			return
		}
		if held && !p.Read {
			s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpWrite})
			if s.pointAt(a, trace.OpWrite) != nil {
				return
			}
		}
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpRelease})
	err := lock.Release(ctx)
	if errors.Is(err, redis.ErrClosed) {
		return
	}
	s.report(a, model.Note{Kind: model.NoteReleased, Err: err})
}

// check is a Check program's look, before its write, at whether the client
// still holds the lock: its watchdog's lost signal, else a GET of the
// lock's key on the first node (HEXISTS of its field, for a hash) against
// the value its acquire wrote. A program without Check, or a client whose
// acquire wrote nothing on the key (no lock at all), holds as far as it can
// tell. A check that fails (the server is unreachable) does not hold: the
// client cannot tell, and careful code does not write then.
func (s *ActorSide) check(ctx context.Context, a *model.Actor) (bool, error) {
	c := a.Client
	if !c.Prog.Check {
		return true, nil
	}
	s.report(a, model.Note{Kind: model.NoteOp, Op: trace.OpCheck})
	n := model.Note{Kind: model.NoteChecked, Held: true}
	if wt, ok := c.Lock.(lockimpl.Watcher); ok && isClosed(wt.Lost()) {
		n.Held, n.Watchdog = false, true
	} else if c.Claim != "" && c.ClaimField {
		found, err := c.Rdb[0].HExists(ctx, c.Key, c.Claim).Result()
		n.Held, n.Err = found && err == nil, err
	} else if c.Claim != "" {
		v, err := c.Rdb[0].Get(ctx, c.Key).Result()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		n.Held, n.Found, n.Err = v == c.Claim && err == nil, v, err
	}
	if errors.Is(n.Err, redis.ErrClosed) {
		return false, n.Err
	}
	s.report(a, n)
	return n.Held, nil
}

// isClosed says whether ch is closed; a nil channel never is.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
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
