package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultCrash lets a client's process end: it sends nothing more, and its
// keys stay in Redis.
const FaultCrash trace.Fault = "crash"

// MoveCrash: a client's process ends.
const MoveCrash MoveKind = "crash"

func init() {
	registerFault(faultSpec{rank: 2, moveRank: 1, verbRank: 3, FaultInfo: FaultInfo{Fault: FaultCrash, Moves: "crash A",
		Verbs: []LessonVerb{{Name: "crash", Takes: TakesClient, EndsHold: true, Search: SearchFault, Do: onClient((*Client).Crash)}},
		Doc:   text.Text{EN: "A's process ends; its keys stay", ZH: "A 的进程结束；它的键留在 Redis 里"}},
		kinds: []MoveKind{MoveCrash},
		clientMoves: func(s *Stepper, c *model.Client, live bool) []Move {
			if !s.faults[FaultCrash] || !live {
				return nil
			}
			return []Move{{Kind: MoveCrash, ID: moveID(MoveCrash, c.Name),
				Label: text.Text{EN: c.Name + "'s process crashes", ZH: c.Name + " 的进程崩溃"}}}
		},
		do: func(s *Stepper, m Move) { s.client(m.ID).Crash() },
	})
}
