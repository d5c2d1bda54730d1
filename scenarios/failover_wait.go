package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// failoverWait: failover with WAIT. The failover timeline again, and then
// the failed primary rejoins as a replica, as Sentinel arranges. A lock that
// waits for its replica's acknowledgement (WAIT) is never believed held
// before the replica has it: A's acquire fails with the primary, and B's
// succeeds only once a replica is back to acknowledge it. Every lock that
// does not wait loses A's hold as in failover.
var failoverWait = Scenario{
	ID: "failover-wait",
	Title: sim.Text{
		EN: "Failover with WAIT: no acknowledgement, no lock",
		ZH: "主从切换与 WAIT：从库没确认，就不算拿到锁",
	},
	Summary: sim.Text{
		EN: "As failover, and the old primary rejoins as a replica at t=4s; a lock that WAITs for its replica is never held where a failover can lose it",
		ZH: "与 failover 相同，旧主库在第 4 秒作为从库重新加入；等从库确认（WAIT）的锁，不会在可能因切换而丢失的时候被认为已拿到",
	},
	Story: story("failover-wait"),
	Naive: "uuid-lua",
	Setup: sim.Setup{Replica: true, Lag: time.Second, Rejoin: true},
	Script: func(t *sim.Timeline) {
		t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: 2 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock and works for 20s. Replication trails the primary by 1s, slow but working. A lock that waits for acknowledgement asks for one replica and gives up after a tenth of the TTL (3s).",
			"A 加锁后干 20 秒的活。复制比主库慢 1 秒——慢，但在工作。等待确认的锁要求 1 个从库确认，最多等 TTL 的十分之一（3 秒）。")
		t.RunUntil(500 * time.Millisecond)
		t.Say("At t=0.5s the primary dies before its replica has A's lock; the replica is promoted. (Redlock's first node simply dies.)",
			"第 0.5 秒，主库在从库收到 A 的锁之前宕机；从库被提升为主库。（Redlock 的第一个节点则直接宕机。）")
		t.Failover()
		t.Say("At t=2s B wants the same lock and retries every 10s.",
			"第 2 秒 B 想要同一把锁，每 10 秒重试一次。")
		t.RunUntil(4 * time.Second)
		t.Say("At t=4s the old primary is back; Sentinel makes it a replica of the new primary.",
			"第 4 秒，旧主库恢复了；哨兵把它配置成新主库的从库。")
		t.Rejoin()
		t.RunToEnd()
	},
}
