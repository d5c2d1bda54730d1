package sim

import (
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// FaultPartition lets the network between a holder and one server break,
// and heal: the client's process runs on, its watchdog too, but nothing it
// sends there arrives. Once per client, while it holds the lock (as the
// partition lesson's A does).
const FaultPartition trace.Fault = "partition"

// The partition's moves: the network between a client and a server
// breaks; it heals.
const (
	MovePartition MoveKind = "partition"
	MoveHeal      MoveKind = "heal"
)

func init() {
	registerFault(faultSpec{rank: 9, moveRank: 4, verbRank: 4, FaultInfo: FaultInfo{Fault: FaultPartition, Moves: "partition A redis-N, heal A",
		// A lesson's timeline breaks the network one way too (the replies
		// lost), which the explorer does not; heal ends either.
		Verbs: []LessonVerb{
			{Name: "partition", Takes: TakesClientServers, Usage: "want the servers the client is cut off from: partition A redis-4 redis-5",
				Search: SearchAsked, Do: onClientServers((*Client).Partition)},
			{Name: "drop-replies", Takes: TakesClientServers, Usage: "want the servers whose replies the client loses: drop-replies A redis-3",
				Search: SearchLacks, Do: onClientServers((*Client).DropReplies)},
			{Name: "heal", Takes: TakesClient, Do: onClient((*Client).Heal)}},
		Doc: text.Text{
			EN: "the network between A and one server breaks while A holds the lock, and heals: A's process runs on, its watchdog too, but nothing it sends there arrives, and a watchdog cut off renews nothing. Once per client",
			ZH: "A 持有锁时它与某台服务器之间的网络断开，之后恢复：A 的进程和看门狗照常运行，但发往那里的命令都到不了，被隔开的看门狗续不了期。每个客户端一次"}},
		kinds:       []MoveKind{MovePartition, MoveHeal},
		clientMoves: partitionMoves,
		memory:      faultMemory{by: view.KeyedByClient},
		do: func(s *Stepper, m Move) {
			if m.Kind == MoveHeal {
				s.client(m.ID).Heal()
				return
			}
			// "partition A redis-2": the client is the middle word.
			c := s.client(strings.Fields(m.ID)[1])
			s.strike(FaultPartition, s.clientIndex(c.c))
			c.Partition(s.node(m.ID))
		},
	})
}

func partitionMoves(s *Stepper, c *model.Client, live bool) []Move {
	var moves []Move
	if s.faults[FaultPartition] && live && c.Belief == trace.BeliefHolds && !s.struck(FaultPartition, s.clientIndex(c)) {
		moves = s.nodeMoves(MovePartition, c.Name, func(int, *model.Server) bool { return true }, func(srv *model.Server) text.Text {
			return text.Text{EN: "the network between " + c.Name + " and " + srv.Name + " breaks",
				ZH: c.Name + " 与 " + srv.Name + " 之间的网络断了"}
		})
	}
	if len(c.Cut) > 0 && !c.Crashed {
		moves = append(moves, Move{Kind: MoveHeal, ID: moveID(MoveHeal, c.Name),
			Label: text.Text{EN: "the network heals for " + c.Name, ZH: c.Name + " 的网络恢复"}})
	}
	return moves
}
