package explore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// setNXEXMoves break set-nx-ex's ownership: A's release after its lease ran
// out deletes B's lock.
var setNXEXMoves = []string{"A", "A", "B", "time", "A", "A", "time", "B", "A"}

func setNXEX(t *testing.T) lockimpl.Info {
	t.Helper()
	in, err := lockimpl.Lookup("set-nx-ex")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestReplay(t *testing.T) {
	tr, err := Replay(context.Background(), setNXEX(t), &trace.Schedule{Clients: 2, Attempts: 1,
		Faults: []trace.Fault{sim.FaultExpiry}, Moves: setNXEXMoves})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Broken(); len(got) != 1 || got[0] != invariant.Ownership {
		t.Errorf("broken %v, want ownership", got)
	}
	if tr.Schedule == nil || len(tr.Schedule.Moves) != len(setNXEXMoves) {
		t.Errorf("the trace does not carry its schedule: %+v", tr.Schedule)
	}
}

// A schedule read from a file is held to the explorer's own bounds before
// its world is built: -3 clients panicked in makeslice, 100000 took 1.5 GB
// (issue "Hardening", items 3 and 4).
func TestReplayRefusesScheduleOutOfBounds(t *testing.T) {
	ok := func() *trace.Schedule {
		return &trace.Schedule{Clients: 2, Attempts: 1, Faults: []trace.Fault{sim.FaultExpiry}, Moves: setNXEXMoves}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*trace.Schedule)
		want   string
	}{
		{"negative clients", func(s *trace.Schedule) { s.Clients = -3 }, "schedule.clients: -3, want 2 or 3"},
		{"too many clients", func(s *trace.Schedule) { s.Clients = 100000 }, "schedule.clients: 100000, want 2 or 3"},
		{"four nodes", func(s *trace.Schedule) { s.Nodes = 4 }, "schedule.nodes: 4, want 3 or 5 (none: 3)"},
		{"no attempt", func(s *trace.Schedule) { s.Attempts = 0 }, "schedule.attempts: 0, want 1 to 12"},
		{"too many attempts", func(s *trace.Schedule) { s.Attempts = 1 << 30 }, "schedule.attempts: 1073741824, want 1 to 12"},
		{"unknown fault", func(s *trace.Schedule) { s.Faults = []trace.Fault{sim.FaultExpiry, "meteor"} },
			`schedule.faults[1]: unknown fault "meteor"`},
		{"mistyped fault", func(s *trace.Schedule) { s.Faults = []trace.Fault{"pasue"} },
			`schedule.faults[0]: unknown fault "pasue"; did you mean pause?`},
		{"too many moves", func(s *trace.Schedule) { s.Moves = make([]string, MaxMoves+1) },
			"schedule.moves: 1001 moves, the most is 1000"},
		{"unknown move", func(s *trace.Schedule) { s.Moves = []string{"A", "teleport"} }, "move 2 (teleport)"},
		{"a lease of a nanosecond", func(s *trace.Schedule) { s.Lease = 1 }, "schedule.lease: 1ns, want 0 (none) or 1ms to 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ok()
			tc.mutate(s)
			_, err := Replay(context.Background(), setNXEX(t), s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Replay(context.Background(), setNXEX(t), nil); err == nil {
		t.Error("a nil schedule replayed")
	}
}

// Replay stops between moves once its context is cancelled (Ctrl-C).
func TestReplayHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Replay(ctx, setNXEX(t), &trace.Schedule{Clients: 2, Attempts: 1, Moves: setNXEXMoves})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// --depth is held to the same bound as a schedule's moves.
func TestOptionsBoundDepth(t *testing.T) {
	if err := (Options{Depth: MaxMoves}).Validate(); err != nil {
		t.Errorf("depth %d: %v", MaxMoves, err)
	}
	if err := (Options{Depth: MaxMoves + 1}).Validate(); err == nil || !strings.Contains(err.Error(), "--depth") {
		t.Errorf("depth %d: err = %v", MaxMoves+1, err)
	}
}

// A schedule saved when the delayed-restart fault's move was called "stop
// redis-N" (now "delayed-restart redis-N", after its fault) replays as it
// did: the same trace, whose schedule gives the name now.
func TestReplayOldMoveName(t *testing.T) {
	in, err := lockimpl.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	moves := func(stop string) []string {
		return []string{"A", "A/redis-1", "A/redis-2", "A/redis-3", stop + " redis-2"}
	}
	replay := func(stop string) []byte {
		t.Helper()
		tr, err := Replay(context.Background(), in, &trace.Schedule{Clients: 2, Attempts: 1,
			Faults: []trace.Fault{sim.FaultExpiry, sim.FaultDelayedRestart}, Moves: moves(stop)})
		if err != nil {
			t.Fatalf("%s redis-2: %v", stop, err)
		}
		if got, want := strings.Join(tr.Schedule.Moves, ", "), strings.Join(moves("delayed-restart"), ", "); got != want {
			t.Errorf("%s redis-2: the schedule is %s, want %s", stop, got, want)
		}
		last := tr.Events[len(tr.Events)-1].Snap
		if srv := last.Servers[1]; srv.Name != "redis-2" || srv.Up {
			t.Errorf("%s redis-2: the last snapshot has %s up=%v, want redis-2 down", stop, srv.Name, srv.Up)
		}
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if old, now := replay("stop"), replay("delayed-restart"); string(old) != string(now) {
		t.Errorf("the old name's trace differs from the new name's:\n%s\n%s", old, now)
	}
}
