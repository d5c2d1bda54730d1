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
func (w *World) startWait(a *actor, wc *waitCmd) {
	w.running--
	wc.seq = w.replSeq
	wc.deadline = w.now + wc.timeout
	if wc.timeout == 0 {
		wc.deadline = w.setup.Horizon + time.Hour
	}
	a.state, a.deadline, a.waitFor = stateSleeping, wc.deadline, wc
	if w.acked(wc) >= wc.want {
		w.finishWait(a, nil)
	}
}

// acked counts the replicas of the WAIT's server that are up and have every
// write it waits for.
func (w *World) acked(wc *waitCmd) int64 {
	r := w.servers[wc.server].replica
	if r < 0 || !w.servers[r].up {
		return 0
	}
	for _, e := range w.repl {
		if e.replica == r && e.seq <= wc.seq {
			return 0
		}
	}
	return 1
}

// finishWait ends actor a's WAIT with the number of replicas that acknowledged,
// or with err, and puts it in line to go on.
func (w *World) finishWait(a *actor, err error) {
	a.waitReply, a.waitErr = w.acked(a.waitFor), err
	a.waitFor = nil
	a.state, a.park = stateParked, parkNone
	w.enqueue(a)
}

// checkWaits ends the WAITs that have their acknowledgements, and fails those
// whose server went down.
func (w *World) checkWaits() {
	for _, a := range w.actors {
		wc := a.waitFor
		if wc == nil || a.state != stateSleeping {
			continue
		}
		switch srv := w.servers[wc.server]; {
		case !srv.up:
			w.finishWait(a, &command.NodeDownError{Server: srv.name, Lost: true})
		case w.acked(wc) >= wc.want:
			w.finishWait(a, nil)
		}
	}
}
