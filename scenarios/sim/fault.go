package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is how the explorer's faults are put together: each fault is
// one file (fault_crash.go, fault_pause.go, …) that registers a faultSpec
// — its name, what it does in both languages, the lesson verbs it stands
// for in a lesson's search, the moves it offers a Stepper and what making
// one does. The Stepper's move list (Stepper.moves), the moves it makes
// (Stepper.do), the search a lesson derives (package scenarios), the
// --faults list and the sandbox read them from here. What a fault's moves
// leave behind for the search to remember (a pause that has struck, a
// server restarted) is the Stepper's, in sim.State (state.go).

// FaultInfo is what a fault is, for a reader: its name, its moves as the
// explorer names them ("pause A", "resume A"), what it does, and the
// timeline verbs of a lesson it stands for in the lesson's search.
type FaultInfo struct {
	Fault trace.Fault
	Moves string
	// OldMoves are names its moves went by once, each with its kind now
	// ("stop": the delayed-restart's): a schedule saved with one still
	// replays, as the move of that name now (Stepper.Do).
	OldMoves map[string]MoveKind
	Doc      text.Text
	Verbs    []string
}

// faultSpec is one fault's record.
type faultSpec struct {
	FaultInfo
	// rank is its place in Faults (the order --faults lists them in);
	// moveRank its moves' place in a Stepper's move list, among the other
	// faults' moves of a client or of the world.
	rank, moveRank int
	// clientMoves are the moves it offers for client c now, live when c's
	// process runs (it has started, it has not crashed or finished);
	// worldMoves those it offers for the servers. Either may be nil. A
	// move that ends what the fault began (resume, unhang, heal) is
	// offered whether or not the fault is enabled: only it began it.
	clientMoves func(s *Stepper, c *client, live bool) []Move
	worldMoves  func(s *Stepper) []Move
	// kinds are the kinds of its moves; do makes one.
	kinds []MoveKind
	do    func(s *Stepper, m Move)
}

// faults are the registered faults, in rank order; Faults their names.
var (
	faults []faultSpec
	// Faults lists every fault, in order.
	Faults []trace.Fault
)

// registerFault adds a fault; each fault's file calls it from init.
func registerFault(f faultSpec) {
	if i := slices.IndexFunc(faults, func(o faultSpec) bool { return o.rank == f.rank || o.Fault == f.Fault }); i >= 0 {
		panic(fmt.Sprintf("fault %s: rank %d or name taken by %s", f.Fault, f.rank, faults[i].Fault))
	}
	faults = append(faults, f)
	slices.SortFunc(faults, func(a, b faultSpec) int { return cmp.Compare(a.rank, b.rank) })
	Faults = Faults[:0]
	for _, f := range faults {
		Faults = append(Faults, f.Fault)
	}
}

// FaultInfos describes every fault, in order.
func FaultInfos() []FaultInfo {
	out := make([]FaultInfo, len(faults))
	for i, f := range faults {
		out[i] = f.FaultInfo
	}
	return out
}

// inMoveOrder is the faults in the order their moves are offered.
func inMoveOrder() []faultSpec {
	out := slices.Clone(faults)
	slices.SortStableFunc(out, func(a, b faultSpec) int { return cmp.Compare(a.moveRank, b.moveRank) })
	return out
}

// faultMoves are the faults' moves now: each client's, client by client,
// then the world's.
func (s *Stepper) faultMoves() []Move {
	var moves []Move
	order := inMoveOrder()
	for _, c := range s.w.clients {
		live := !c.crashed && c.biz.state != stateDone && c.op != trace.OpStart
		for _, f := range order {
			if f.clientMoves != nil {
				moves = append(moves, f.clientMoves(s, c, live)...)
			}
		}
	}
	for _, f := range order {
		if f.worldMoves != nil {
			moves = append(moves, f.worldMoves(s)...)
		}
	}
	return moves
}

// doFault makes m, a fault's move.
func (s *Stepper) doFault(m Move) {
	for _, f := range faults {
		if slices.Contains(f.kinds, m.Kind) {
			f.do(s, m)
			return
		}
	}
	panic("no fault makes moves of kind " + string(m.Kind))
}

// moveID is a fault's move's ID: its kind, then whom it strikes — the
// client, the server, or both ("pause A", "delayed-restart redis-2",
// "partition A redis-3"). A fault, its moves and their IDs go by one name.
func moveID(kind MoveKind, who ...string) string {
	return strings.Join(append([]string{string(kind)}, who...), " ")
}

// moveNow is the ID of a move as it is called now: one that names a move
// by an old name (OldMoves: "stop redis-2") is the move of that name now
// ("delayed-restart redis-2"); any other ID is itself.
func moveNow(id string) string {
	verb, rest, who := strings.Cut(id, " ")
	for _, f := range faults {
		if kind, ok := f.OldMoves[verb]; ok && who {
			return moveID(kind, rest)
		} else if ok {
			return moveID(kind)
		}
	}
	return id
}

// nodeMoves is a move for every logical node whose server pick accepts,
// in route order: kind, with the ID "<kind> [client] <server>" (client
// when not empty) and label's text.
func (s *Stepper) nodeMoves(kind MoveKind, client string, pick func(i int, srv *server) bool, label func(srv *server) text.Text) []Move {
	var moves []Move
	w := s.w
	for i := range w.route {
		srv := w.servers[w.route[i]]
		if pick(i, srv) {
			id := moveID(kind, srv.name)
			if client != "" {
				id = moveID(kind, client, srv.name)
			}
			moves = append(moves, Move{Kind: kind, ID: id, Label: label(srv)})
		}
	}
	return moves
}
