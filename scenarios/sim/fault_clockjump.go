package sim

import (
	"slices"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// FaultClockJump lets a server's clock jump ahead by a whole lease (an NTP
// step, an operator's date command): every key there with a TTL expires at
// once. Once per server, while it holds such a key.
const FaultClockJump trace.Fault = "clock-jump"

// MoveClockJump: a server's clock jumps ahead by a lease.
const MoveClockJump MoveKind = "clock-jump"

func init() {
	registerFault(faultSpec{rank: 7, moveRank: 6, verbRank: 7, FaultInfo: FaultInfo{Fault: FaultClockJump, Moves: "clock-jump redis-N",
		Verbs: []LessonVerb{{Name: "clock-jump", Takes: TakesServerBy, Search: SearchFault, Do: onServerBy((*Timeline).ClockJump)},
			// Set back: the server's keys live longer. The explorer has no
			// move for it.
			{Name: "clock-back", Takes: TakesServerBy, Search: SearchLacks, Do: onServerBy((*Timeline).ClockBack)}},
		Doc: text.Text{
			EN: "the server's clock jumps a whole lease ahead, and every key there with a TTL expires at once (an NTP step); once per server, while it holds such a key",
			ZH: "服务器的时钟向前跳一整个租约，那里所有带 TTL 的键同时过期（NTP 校时）；每台服务器一次，且要它上面有这样的键"}},
		kinds:  []MoveKind{MoveClockJump},
		memory: faultMemory{by: view.KeyedByNode},
		worldMoves: func(s *Stepper) []Move {
			if !s.faults[FaultClockJump] {
				return nil
			}
			ttl := s.w.Setup.TTL
			return s.nodeMoves(MoveClockJump, "", func(i int, srv *model.Server) bool {
				return srv.Up && !s.struck(FaultClockJump, i) && slices.ContainsFunc(srv.Keys, func(k trace.KeyState) bool { return k.TTL > 0 })
			}, func(srv *model.Server) text.Text {
				return text.Text{EN: srv.Name + "'s clock jumps " + narrate.Secs(ttl) + " ahead", ZH: srv.Name + " 的时钟向前跳 " + narrate.SecsZH(ttl)}
			})
		},
		do: func(s *Stepper, m Move) {
			i := s.node(m.ID)
			s.strike(FaultClockJump, i)
			(&Timeline{w: s.w}).ClockJump(i, s.w.Setup.TTL)
		},
	})
}
