package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultRestart lets a server restart empty, as Redis without persistence
// does: locks, fencing counters and scripts forgotten. Once per server.
const FaultRestart trace.Fault = "restart"

// MoveRestart: a server restarts empty.
const MoveRestart MoveKind = "restart"

func init() {
	registerFault(faultSpec{rank: 5, moveRank: 7, verbRank: 6, FaultInfo: FaultInfo{Fault: FaultRestart, Moves: "restart redis-N",
		// A lesson's timeline takes the server down and brings it back in
		// two steps, with as much time between as it likes: the restart
		// (at once) and the delayed restart (a lease and RestartDelay
		// later) are both made of them. Its search has this fault's moves;
		// a lesson whose server stays down longer says so in its explore
		// line (delayed-restart).
		Verbs: []LessonVerb{
			{Name: "stop-server", Takes: TakesServer, Search: SearchFault, Do: onServer((*Timeline).StopServer)},
			{Name: "restart-server", Takes: TakesServer, Search: SearchFault, Do: onServer((*Timeline).RestartServer)}},
		Doc: text.Text{EN: "a server restarts empty, once per server", ZH: "服务器重启，数据清空，每台服务器一次"}},
		kinds: []MoveKind{MoveRestart},
		// It remembers the servers restarted, by it or by the delayed
		// restart: a server restarts once, by either.
		memory: faultMemory{by: view.KeyedByNode},
		worldMoves: func(s *Stepper) []Move {
			if !s.faults[FaultRestart] {
				return nil
			}
			return s.nodeMoves(MoveRestart, "", func(i int, srv *model.Server) bool { return srv.Up && !s.struck(FaultRestart, i) },
				func(srv *model.Server) text.Text {
					return text.Text{EN: srv.Name + " restarts empty", ZH: srv.Name + " 重启，数据清空"}
				})
		},
		do: func(s *Stepper, m Move) {
			i := s.node(m.ID)
			s.strike(FaultRestart, i)
			s.w.Fleet.StopServer(i)
			(&Timeline{w: s.w}).RestartServer(i)
		},
	})
}
