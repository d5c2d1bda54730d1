package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultPause lets a client's whole process stop and go on (a GC pause),
// once per client: it keeps its beliefs, and its timers fire when it
// resumes.
const FaultPause trace.Fault = "pause"

// The pause's moves: a client's process stops, and goes on.
const (
	MovePause  MoveKind = "pause"
	MoveResume MoveKind = "resume"
)

func init() {
	registerFault(faultSpec{rank: 3, moveRank: 2, verbRank: 1, FaultInfo: FaultInfo{Fault: FaultPause, Moves: "pause A, resume A",
		Verbs: []LessonVerb{
			{Name: "pause", Takes: TakesClient, Search: SearchFault, Do: onClient((*Client).Pause)},
			{Name: "resume", Takes: TakesClient, Search: SearchFault, Do: onClient((*Client).Resume)}},
		Doc: text.Text{EN: "A's whole process stops and goes on, once per client", ZH: "A 的整个进程停顿，然后继续，每个客户端一次"}},
		kinds:  []MoveKind{MovePause, MoveResume},
		memory: faultMemory{by: view.KeyedByClient},
		clientMoves: func(s *Stepper, c *model.Client, live bool) []Move {
			var moves []Move
			if s.faults[FaultPause] && live && !c.Paused && !s.struck(FaultPause, s.clientIndex(c)) {
				moves = append(moves, Move{Kind: MovePause, ID: moveID(MovePause, c.Name),
					Label: text.Text{EN: c.Name + "'s process pauses (GC)", ZH: c.Name + " 的进程停顿（GC）"}})
			}
			if c.Paused && !c.Crashed {
				moves = append(moves, Move{Kind: MoveResume, ID: moveID(MoveResume, c.Name),
					Label: text.Text{EN: c.Name + "'s process resumes", ZH: c.Name + " 的进程恢复"}})
			}
			return moves
		},
		do: func(s *Stepper, m Move) {
			c := s.client(m.ID)
			if m.Kind == MovePause {
				s.strike(FaultPause, s.clientIndex(c.c))
				c.Pause()
				return
			}
			c.Resume()
			// Timeouts that passed during the pause are seen now.
			s.w.Drain()
			s.w.WakeDue()
		},
	})
}
