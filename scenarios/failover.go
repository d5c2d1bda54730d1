package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// failover: lock loss on failover (主从切换丢锁). Redis replicates
// asynchronously; A's lock is on the primary but not yet on the replica when
// the primary dies. The replica is promoted without it and B takes the same
// lock. No single-instance implementation can help: this is the replication
// window, not a bug in the lock. Redlock runs on five independent servers
// instead; losing one leaves the majority holding A's lock.
var failover = Scenario{
	ID: "failover",
	Title: sim.Text{
		EN: "Failover loses the lock",
		ZH: "主从切换丢锁",
	},
	Summary: sim.Text{
		EN: "A locks on the primary; the primary dies before replicating; the replica is promoted; B takes the lock",
		ZH: "A 在主库加锁；主库在复制之前宕机；从库升为主库；B 拿到了同一把锁",
	},
	Story: story("failover"),
	Naive: "uuid-lua",
	Setup: sim.Setup{Replica: true, Lag: time.Second},
	Script: func(t *sim.Timeline) {
		t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: 2 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock and works for 20s. Replication to the replica trails the primary by 1s (asynchronous replication).",
			"A 加锁后干 20 秒的活。主库到从库的复制有 1 秒延迟（异步复制）。")
		t.RunUntil(500 * time.Millisecond)
		t.Say("At t=0.5s the first server dies. With a replica, Sentinel promotes it and clients follow; Redlock's servers have no replicas, so the node is simply gone.",
			"第 0.5 秒，第一台服务器宕机。有从库时，哨兵把从库提升为主库，客户端跟着切过去；Redlock 的实例没有从库，这个节点就直接没了。")
		t.Failover()
		t.Say("At t=2s B wants the same lock and retries every 10s.",
			"第 2 秒 B 想要同一把锁，每 10 秒重试一次。")
		t.RunToEnd()
	},
}
