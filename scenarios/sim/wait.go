package sim

import (
	"strconv"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// waitCmd is a WAIT numreplicas timeout on an embedded server: it returns
// once numreplicas replicas have every write the server had made when it
// began, or when timeout has passed, with the number that had.
type waitCmd struct {
	server   int
	want     int64
	timeout  time.Duration // virtual; 0 waits for ever
	seq      int           // the last replication entry it waits for
	deadline time.Duration
}

// parseWait reads a WAIT command for server srv.
func parseWait(cmd redis.Cmder, srv int) (*waitCmd, bool) {
	if cmd.Name() != "wait" {
		return nil, false
	}
	args := cmd.Args()
	if len(args) != 3 {
		return nil, false
	}
	want, ms := toInt(args[1]), toInt(args[2])
	if want < 0 || ms < 0 {
		return nil, false
	}
	return &waitCmd{server: srv, want: int64(want), timeout: time.Duration(ms) * time.Millisecond}, true
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return -1
}

// startWait parks actor a in its WAIT. It returns at once when the replicas
// already have everything.
func (s *sched) startWait(a *actor, wc *waitCmd) {
	s.running--
	wc.seq = s.w.fleet.replSeq
	wc.deadline = s.w.now + wc.timeout
	if wc.timeout == 0 {
		wc.deadline = s.w.setup.Horizon + time.Hour
	}
	a.state, a.deadline, a.waitFor = stateSleeping, wc.deadline, wc
	if s.acked(wc) >= wc.want {
		s.finishWait(a, nil)
	}
}

// acked counts the replicas of the WAIT's server that are up and have every
// write it waits for.
func (s *sched) acked(wc *waitCmd) int64 {
	r := s.w.fleet.servers[wc.server].replica
	if r < 0 || !s.w.fleet.servers[r].up {
		return 0
	}
	for _, e := range s.w.fleet.repl {
		if e.replica == r && e.seq <= wc.seq {
			return 0
		}
	}
	return 1
}

// finishWait ends actor a's WAIT with the number of replicas that acknowledged,
// or with err, and puts it in line to go on.
func (s *sched) finishWait(a *actor, err error) {
	a.waitReply, a.waitErr = s.acked(a.waitFor), err
	a.waitFor = nil
	a.state, a.park = stateParked, parkNone
	s.enqueue(a)
}

// checkWaits ends the WAITs that have their acknowledgements, and fails those
// whose server went down.
func (s *sched) checkWaits() {
	for _, a := range s.actors {
		wc := a.waitFor
		if wc == nil || a.state != stateSleeping {
			continue
		}
		switch srv := s.w.fleet.servers[wc.server]; {
		case !srv.up:
			s.finishWait(a, &command.NodeDownError{Server: srv.name, Lost: true})
		case s.acked(wc) >= wc.want:
			s.finishWait(a, nil)
		}
	}
}
