package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultHang lets a holder's business call get stuck while the rest of its
// process — a watchdog — runs on (a hung downstream call, work far longer
// than the lease), once per client.
const FaultHang trace.Fault = "hang"

// The hang's moves: a holder's business call gets stuck; it returns.
const (
	MoveHang   MoveKind = "hang"
	MoveUnhang MoveKind = "unhang"
)

func init() {
	registerFault(faultSpec{rank: 6, moveRank: 3, verbRank: 2, FaultInfo: FaultInfo{Fault: FaultHang, Moves: "hang A, unhang A",
		Verbs: []LessonVerb{
			{Name: "hang", Takes: TakesClient, Search: SearchFault, Do: onClient((*Client).Hang)},
			{Name: "unhang", Takes: TakesClient, Search: SearchFault, Do: onClient((*Client).Unhang)}},
		Doc: text.Text{
			EN: "A's business call gets stuck while it holds the lock, and returns; the rest of its process — a watchdog — runs on. Once per client: a downstream call that hangs, or work far longer than the lease",
			ZH: "A 持有锁时业务调用卡住，之后返回；进程的其余部分（看门狗）照常运行。每个客户端一次：下游调用卡住，或干活远超租约"}},
		kinds:  []MoveKind{MoveHang, MoveUnhang},
		memory: faultMemory{by: view.KeyedByClient},
		clientMoves: func(s *Stepper, c *model.Client, live bool) []Move {
			var moves []Move
			if s.faults[FaultHang] && live && c.Belief == trace.BeliefHolds && !c.Hung && !s.struck(FaultHang, s.clientIndex(c)) {
				moves = append(moves, Move{Kind: MoveHang, ID: moveID(MoveHang, c.Name),
					Label: text.Text{EN: c.Name + "'s business call hangs", ZH: c.Name + " 的业务调用卡死"}})
			}
			if c.Hung && !c.Crashed {
				moves = append(moves, Move{Kind: MoveUnhang, ID: moveID(MoveUnhang, c.Name),
					Label: text.Text{EN: c.Name + "'s call returns", ZH: c.Name + " 的调用返回"}})
			}
			return moves
		},
		do: func(s *Stepper, m Move) {
			c := s.client(m.ID)
			if m.Kind == MoveHang {
				s.strike(FaultHang, s.clientIndex(c.c))
				c.Hang()
				return
			}
			c.Unhang()
			s.w.WakeDue()
		},
	})
}
