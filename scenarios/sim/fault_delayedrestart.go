package sim

import (
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// FaultDelayedRestart lets a server go down and come back empty only after
// RestartDelay past the lease: the delayed-restart rule the Redlock spec
// gives against a node that restarts without persistence. Once per server
// (a server restarts once, by this fault or FaultRestart).
const FaultDelayedRestart trace.Fault = "delayed-restart"

// MoveDelayedRestart: a server goes down; it comes back empty after the
// lease and RestartDelay, with the time move that gets there. Its moves
// were called "stop redis-N" once; a schedule that says so still replays.
const MoveDelayedRestart MoveKind = "delayed-restart"

// RestartDelay is how long, past the lease, a server stopped by the
// delayed-restart fault stays down.
const RestartDelay = time.Second

func init() {
	registerFault(faultSpec{rank: 8, moveRank: 8, FaultInfo: FaultInfo{Fault: FaultDelayedRestart, Moves: "delayed-restart redis-N", OldMoves: map[string]MoveKind{"stop": MoveDelayedRestart},
		Doc: text.Text{
			EN: "a server goes down and comes back empty by itself once the lease and a second more (31 s) have passed, with the time move that gets there: the delayed-restart rule. Once per server",
			ZH: "服务器宕机，过了租约再加一秒（31 秒）后自己带着空数据回来，由走到那一刻的时间步完成：延迟重启规则。每台服务器一次"}},
		kinds: []MoveKind{MoveDelayedRestart},
		// It remembers the servers down, each with when it comes back; the
		// servers restarted are the restart's memory (a server restarts
		// once, by either).
		memory: faultMemory{by: view.KeyedByNode, due: func(s *Stepper, i int) { (&Timeline{w: s.w}).RestartServer(i) }},
		worldMoves: func(s *Stepper) []Move {
			if !s.faults[FaultDelayedRestart] {
				return nil
			}
			ttl := s.w.Setup.TTL
			return s.nodeMoves(MoveDelayedRestart, "", func(i int, srv *model.Server) bool { return srv.Up && !s.struck(FaultRestart, i) },
				func(srv *model.Server) text.Text {
					return text.Text{EN: srv.Name + " goes down; it restarts empty after " + narrate.Secs(ttl+RestartDelay),
						ZH: srv.Name + " 宕机；" + narrate.SecsZH(ttl+RestartDelay) + "后重启，数据清空"}
				})
		},
		do: func(s *Stepper, m Move) {
			i := s.node(m.ID)
			s.strike(FaultRestart, i)
			s.strikeUntil(FaultDelayedRestart, i, s.w.Now+s.w.Setup.TTL+RestartDelay)
			s.w.Fleet.StopServer(i)
		},
	})
}
