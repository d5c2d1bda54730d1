package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultFailover lets the first node's primary die: Sentinel promotes its
// replica Setup.DownAfter later, with what it had received by then.
const FaultFailover trace.Fault = "failover"

// MoveFailover: the primary dies; Sentinel promotes its replica
// down-after later.
const MoveFailover MoveKind = "failover"

func init() {
	registerFault(faultSpec{rank: 4, moveRank: 5, verbRank: 5, FaultInfo: FaultInfo{Fault: FaultFailover, Moves: "failover",
		// A lesson's timeline may bring the old primary back, as a replica
		// (rejoin), which the explorer does not.
		Verbs: []LessonVerb{
			{Name: "failover", Takes: TakesNothing, Search: SearchFault, Do: onWorld((*Timeline).Failover)},
			{Name: "rejoin", Takes: TakesNothing, Needs: needsRejoin, Search: SearchLacks, Do: onWorld((*Timeline).Rejoin)}},
		Doc: text.Text{
			EN: "the primary dies, and Sentinel promotes its replica (1 s behind) 1 s later, with the time move that gets there: the failover lessons' `down-after`",
			ZH: "主库宕机，1 秒后哨兵把从库（落后 1 秒）提升为主库，由走到那一刻的时间步完成：即故障转移课的 `down-after`"}},
		kinds: []MoveKind{MoveFailover},
		worldMoves: func(s *Stepper) []Move {
			w := s.w
			if p := w.Fleet.Servers[w.Fleet.Route[0]]; !s.faults[FaultFailover] || !p.Up || p.Replica < 0 {
				return nil
			}
			p, d := w.Fleet.Servers[w.Fleet.Route[0]], w.Setup.DownAfter
			return []Move{{Kind: MoveFailover, ID: "failover",
				Label: text.Text{EN: p.Name + " dies; Sentinel promotes its replica " + narrate.Secs(d) + " later",
					ZH: p.Name + " 宕机；" + narrate.SecsZH(d) + "后哨兵把从库提升为主库"}}}
		},
		do: func(s *Stepper, m Move) { s.w.Fleet.Failover() },
	})
}

// needsRejoin is what rejoin needs of a lesson's setup: the old primary
// comes back only where the setup says it does.
func needsRejoin(s model.Setup) string {
	if !s.Rejoin {
		return `rejoin needs "rejoin" in the setup line`
	}
	return ""
}
