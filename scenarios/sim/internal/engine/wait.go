package engine

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// startWait parks actor a in its WAIT. It returns at once when the replicas
// already have everything.
func (s *Sched) startWait(a *model.Actor, wc *model.WaitCmd) {
	s.running--
	wc.Seq = s.W.Fleet.ReplSeq
	wc.Deadline = s.W.Now + wc.Timeout
	if wc.Timeout == 0 {
		wc.Deadline = s.W.Setup.Horizon + time.Hour
	}
	a.State, a.Deadline, a.WaitFor = model.StateSleeping, wc.Deadline, wc
	if s.acked(wc) >= wc.Want {
		s.finishWait(a, nil)
	}
}

// acked counts the replicas of the WAIT's server that are up and have every
// write it waits for.
func (s *Sched) acked(wc *model.WaitCmd) int64 {
	r := s.W.Fleet.Servers[wc.Server].Replica
	if r < 0 || !s.W.Fleet.Servers[r].Up {
		return 0
	}
	for _, e := range s.W.Fleet.Repl {
		if e.Replica == r && e.Seq <= wc.Seq {
			return 0
		}
	}
	return 1
}

// finishWait ends actor a's WAIT with the number of replicas that acknowledged,
// or with err, and puts it in line to go on.
func (s *Sched) finishWait(a *model.Actor, err error) {
	a.WaitReply, a.WaitErr = s.acked(a.WaitFor), err
	a.WaitFor = nil
	a.State, a.Park = model.StateParked, model.ParkNone
	s.enqueue(a)
}

// CheckWaits ends the WAITs that have their acknowledgements, and fails those
// whose server went down.
func (s *Sched) CheckWaits() {
	for _, a := range s.Actors {
		wc := a.WaitFor
		if wc == nil || a.State != model.StateSleeping {
			continue
		}
		switch srv := s.W.Fleet.Servers[wc.Server]; {
		case !srv.Up:
			s.finishWait(a, &command.NodeDownError{Server: srv.Name, Lost: true})
		case s.acked(wc) >= wc.Want:
			s.finishWait(a, nil)
		}
	}
}
