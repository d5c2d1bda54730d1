package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is how the faults are put together: each fault is one file
// (fault_crash.go, fault_pause.go, …) that registers a faultSpec — its
// name, what it does in both languages, the moves it offers a Stepper and
// what making one does, and the verbs it gives a lesson's timeline: what
// each takes, the step it makes and what it makes of the search a lesson
// derives. The Stepper's move list (Stepper.moves), the moves it makes
// (Stepper.do), the lesson parser's fault verbs and the search a lesson
// derives (package scenarios, through LessonVerbs), the --faults list and
// the sandbox read them from here. What a fault's moves leave behind for
// the search to remember (a pause that has struck, a server restarted) is
// in its record too: whom its memory is keyed by, and whether with times
// (faultmemory.go); the Stepper keeps it, view.State shows it and the
// explorer's hash writes it, the same way for every fault. A fault only a
// lesson's timeline has (slow: the explorer has no move for it) is a
// record too, of verbs alone.

// FaultInfo is what a fault is, for a reader: its name, its moves as the
// explorer names them ("pause A", "resume A"), what it does, and the verbs
// it gives a lesson's timeline.
type FaultInfo struct {
	// Fault is its name (--faults); empty for a fault only a lesson's
	// timeline has, which is none of the explorer's.
	Fault trace.Fault
	Moves string
	// OldMoves are names its moves went by once, each with its kind now
	// ("stop": the delayed-restart's): a schedule saved with one still
	// replays, as the move of that name now (Stepper.Do).
	OldMoves map[string]MoveKind
	Doc      text.Text
	// Verbs are the verbs it gives a lesson's timeline, in the order an
	// unknown verb's error lists them.
	Verbs []LessonVerb
}

// LessonVerb is a verb of a lesson's timeline that a fault gives ("pause
// C", "clock-jump redis-3 by=40s"): what follows it, the step it makes,
// and what it makes of the search a lesson derives. The lesson parser
// (package scenarios) reads every fault's (LessonVerbs); the timeline's own
// verbs (client, say, run, hold, unhold, expect) are the parser's.
type LessonVerb struct {
	Name string
	// Takes is what follows it on its line.
	Takes VerbArgs
	// Usage is what the error wants when the line has too few or too many
	// arguments ("want slow redis-N by=DURATION (by=0s: fast again)");
	// empty: the parser's own words for what Takes says.
	Usage string
	// Needs, when set, is what it needs of the lesson's setup, as the
	// error says it ("" when the setup has it): rejoin needs "rejoin".
	Needs func(model.Setup) string
	// EndsHold: it lets go of its client's hold, as unhold does (crash:
	// nothing holds a crashed client).
	EndsHold bool
	// Search is what it makes of the search a lesson derives.
	Search VerbSearch
	// Do is the step: what the line says, done to the timeline.
	Do func(t *Timeline, s VerbStep)
	// Fault is its fault's name, as FaultInfo.Fault (LessonVerbs fills it
	// in).
	Fault trace.Fault
}

// VerbArgs is what follows a lesson verb.
type VerbArgs int

// What a lesson verb may take.
const (
	TakesNothing       VerbArgs = iota // failover
	TakesClient                        // pause C
	TakesClientServers                 // partition C redis-4 redis-5
	TakesServer                        // stop-server redis-3
	TakesServerBy                      // clock-jump redis-3 by=40s
)

// VerbStep is what a lesson's line gives its verb's step: the client it
// names, when it takes one; the servers, by node index (0 is redis-1; one,
// for a verb that takes a server); the by= duration, when it takes one.
type VerbStep struct {
	Client *Client
	Nodes  []int
	By     time.Duration
}

// VerbSearch is what a lesson verb makes of the search a lesson derives
// when its file has no explore line (package scenarios, deriveSearch).
type VerbSearch int

// What a lesson verb may make of the search.
const (
	// SearchNothing: nothing (heal ends what another verb began).
	SearchNothing VerbSearch = iota
	// SearchFault: the search has its fault's moves.
	SearchFault
	// SearchLacks: the explorer has no move for it, and the search says
	// it lacks it (Search.Lacks): where the two disagree, the first place
	// to look.
	SearchLacks
	// SearchAsked: as SearchLacks, unless the lesson's explore line asks
	// for its fault (partition: a lesson partitions a client to keep it
	// from the nodes a three-node search does not have).
	SearchAsked
)

// The steps of the verbs done to a client, to a client and some servers,
// to the world, to one server, to one server by a duration.
func onClient(f func(*Client)) func(*Timeline, VerbStep) {
	return func(_ *Timeline, s VerbStep) { f(s.Client) }
}

func onClientServers(f func(*Client, ...int)) func(*Timeline, VerbStep) {
	return func(_ *Timeline, s VerbStep) { f(s.Client, s.Nodes...) }
}

func onWorld(f func(*Timeline)) func(*Timeline, VerbStep) {
	return func(t *Timeline, _ VerbStep) { f(t) }
}

func onServer(f func(*Timeline, int)) func(*Timeline, VerbStep) {
	return func(t *Timeline, s VerbStep) { f(t, s.Nodes[0]) }
}

func onServerBy(f func(*Timeline, int, time.Duration)) func(*Timeline, VerbStep) {
	return func(t *Timeline, s VerbStep) { f(t, s.Nodes[0], s.By) }
}

// faultSpec is one fault's record.
type faultSpec struct {
	FaultInfo
	// lessonOnly: a fault only a lesson's timeline has. It is its verbs
	// alone: no name of its own, no moves, no rank, none of Faults.
	lessonOnly bool
	// rank is its place in Faults (the order --faults lists them in);
	// moveRank its moves' place in a Stepper's move list, among the other
	// faults' moves of a client or of the world; verbRank its verbs'
	// place among the faults' verbs of a lesson's timeline.
	rank, moveRank, verbRank int
	// clientMoves are the moves it offers for client c now, live when c's
	// process runs (it has started, it has not crashed or finished);
	// worldMoves those it offers for the servers. Either may be nil. A
	// move that ends what the fault began (resume, unhang, heal) is
	// offered whether or not the fault is enabled: only it began it.
	clientMoves func(s *Stepper, c *model.Client, live bool) []Move
	worldMoves  func(s *Stepper) []Move
	// kinds are the kinds of its moves; do makes one.
	kinds []MoveKind
	do    func(s *Stepper, m Move)
	// memory is what its moves leave behind for the search to remember:
	// whom they have struck, and when each is due (faultmemory.go).
	memory faultMemory
}

// faults are the registered faults of the explorer, in rank order; Faults
// their names; lessonFaults the faults only a lesson's timeline has;
// inMoveOrder the explorer's faults in the order their moves are offered
// (moveRank), kept as they register since a Stepper reads it at every
// state.
var (
	faults      []faultSpec
	inMoveOrder []faultSpec
	// Faults lists every fault, in order.
	Faults       []trace.Fault
	lessonFaults []faultSpec
)

// registerFault adds a fault; each fault's file calls it from init.
func registerFault(f faultSpec) {
	name := string(f.Fault)
	if f.lessonOnly {
		if f.Fault != "" || f.Moves != "" || f.kinds != nil || f.memory.by != 0 || len(f.Verbs) == 0 {
			panic(fmt.Sprintf("a fault only a lesson's timeline has is verbs alone: %+v", f.FaultInfo))
		}
		name = f.Verbs[0].Name
	}
	for _, o := range slices.Concat(faults, lessonFaults) {
		if len(f.Verbs) > 0 && len(o.Verbs) > 0 && o.verbRank == f.verbRank {
			panic(fmt.Sprintf("fault %s: verb rank %d taken by %s", name, f.verbRank, o.Verbs[0].Name))
		}
		for _, v := range f.Verbs {
			if slices.ContainsFunc(o.Verbs, func(w LessonVerb) bool { return w.Name == v.Name }) {
				panic(fmt.Sprintf("fault %s: the lesson verb %s is another fault's", name, v.Name))
			}
		}
	}
	if f.lessonOnly {
		lessonFaults = append(lessonFaults, f)
		return
	}
	if f.memory.due != nil && f.memory.by == 0 {
		panic(fmt.Sprintf("fault %s: a memory of times keyed by nothing", f.Fault))
	}
	if i := slices.IndexFunc(faults, func(o faultSpec) bool { return o.rank == f.rank || o.Fault == f.Fault }); i >= 0 {
		panic(fmt.Sprintf("fault %s: rank %d or name taken by %s", f.Fault, f.rank, faults[i].Fault))
	}
	faults = append(faults, f)
	slices.SortFunc(faults, func(a, b faultSpec) int { return cmp.Compare(a.rank, b.rank) })
	Faults = Faults[:0]
	for _, f := range faults {
		Faults = append(Faults, f.Fault)
	}
	inMoveOrder = slices.Clone(faults)
	slices.SortStableFunc(inMoveOrder, func(a, b faultSpec) int { return cmp.Compare(a.moveRank, b.moveRank) })
}

// LessonVerbs are the verbs the faults give a lesson's timeline — those
// only a lesson has included — in the order an unknown verb's error lists
// them, each with its fault's name.
func LessonVerbs() []LessonVerb {
	specs := slices.Concat(faults, lessonFaults)
	slices.SortStableFunc(specs, func(a, b faultSpec) int { return cmp.Compare(a.verbRank, b.verbRank) })
	var out []LessonVerb
	for _, f := range specs {
		for _, v := range f.Verbs {
			v.Fault = f.Fault
			out = append(out, v)
		}
	}
	return out
}

// FaultInfos describes every fault of the explorer's, in order.
func FaultInfos() []FaultInfo {
	out := make([]FaultInfo, len(faults))
	for i, f := range faults {
		out[i] = f.FaultInfo
	}
	return out
}

// faultMoves are the faults' moves now: each client's, client by client,
// then the world's.
func (s *Stepper) faultMoves() []Move {
	var moves []Move
	for _, c := range s.w.Clients {
		live := !c.Crashed && c.Biz.State != model.StateDone && c.Op != trace.OpStart
		for i := range inMoveOrder {
			if f := &inMoveOrder[i]; f.clientMoves != nil {
				moves = append(moves, f.clientMoves(s, c, live)...)
			}
		}
	}
	for i := range inMoveOrder {
		if f := &inMoveOrder[i]; f.worldMoves != nil {
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
func (s *Stepper) nodeMoves(kind MoveKind, client string, pick func(i int, srv *model.Server) bool, label func(srv *model.Server) text.Text) []Move {
	var moves []Move
	w := s.w
	for i := range w.Fleet.Route {
		srv := w.Fleet.Servers[w.Fleet.Route[i]]
		if pick(i, srv) {
			id := moveID(kind, srv.Name)
			if client != "" {
				id = moveID(kind, client, srv.Name)
			}
			moves = append(moves, Move{Kind: kind, ID: id, Label: label(srv)})
		}
	}
	return moves
}
