package sim

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// FaultExpiry lets time pass while clients could run: a slow client, a
// delayed command, so that a lease can run out between two commands.
// Without it time passes only when no client can move (Stepper.nextTime
// reads it); it has no moves of its own.
const FaultExpiry trace.Fault = "expiry"

func init() {
	registerFault(faultSpec{rank: 1, moveRank: 1, FaultInfo: FaultInfo{Fault: FaultExpiry,
		Doc: text.Text{
			EN: "time may pass while clients could still move — a slow client, a delayed command — so a lease can run out between any two commands",
			ZH: "客户端还能动时时间也可以流逝——客户端慢、命令被耽搁——于是租约可能在任意两条命令之间到期"}}})
}
