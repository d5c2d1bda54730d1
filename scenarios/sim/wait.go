package sim

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// startWait parks actor a in its WAIT. It returns at once when the replicas
// already have everything.
func (s *sched) startWait(a *model.Actor, wc *model.WaitCmd) {
	s.running--
	wc.Seq = s.w.fleet.replSeq
	wc.Deadline = s.w.now + wc.Timeout
	if wc.Timeout == 0 {
		wc.Deadline = s.w.setup.Horizon + time.Hour
	}
	a.State, a.Deadline, a.WaitFor = model.StateSleeping, wc.Deadline, wc
	if s.acked(wc) >= wc.Want {
		s.finishWait(a, nil)
	}
}

// acked counts the replicas of the WAIT's server that are up and have every
// write it waits for.
func (s *sched) acked(wc *model.WaitCmd) int64 {
	r := s.w.fleet.servers[wc.Server].Replica
	if r < 0 || !s.w.fleet.servers[r].Up {
		return 0
	}
	for _, e := range s.w.fleet.repl {
		if e.Replica == r && e.Seq <= wc.Seq {
			return 0
		}
	}
	return 1
}

// finishWait ends actor a's WAIT with the number of replicas that acknowledged,
// or with err, and puts it in line to go on.
func (s *sched) finishWait(a *model.Actor, err error) {
	a.WaitReply, a.WaitErr = s.acked(a.WaitFor), err
	a.WaitFor = nil
	a.State, a.Park = model.StateParked, model.ParkNone
	s.enqueue(a)
}

// checkWaits ends the WAITs that have their acknowledgements, and fails those
// whose server went down.
func (s *sched) checkWaits() {
	for _, a := range s.actors {
		wc := a.WaitFor
		if wc == nil || a.State != model.StateSleeping {
			continue
		}
		switch srv := s.w.fleet.servers[wc.Server]; {
		case !srv.Up:
			s.finishWait(a, &command.NodeDownError{Server: srv.Name, Lost: true})
		case s.acked(wc) >= wc.Want:
			s.finishWait(a, nil)
		}
	}
}
