package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// reentrantCall: reentrancy (可重入). A holds the lock and calls code that
// takes the same lock again. A lock that does not know its holder refuses A
// like anyone else: A waits for itself (自己挡住自己), a deadlock that lasts
// as long as the lease, or forever without one. A reentrant lock counts holds
// per owner and deletes the key only when the count is back to zero.
var reentrantCall = Scenario{
	ID: "reentrant-call",
	Title: sim.Text{
		EN: "A nested call takes the same lock",
		ZH: "嵌套调用再次获取同一把锁",
	},
	Summary: sim.Text{
		EN: "A holds the lock and calls code that takes it again; a non-reentrant lock refuses A, which waits for itself",
		ZH: "A 持有锁时调用的代码又去获取同一把锁；不可重入的锁会拒绝 A，A 自己等自己",
	},
	Story: story("reentrant-call"),
	Naive: "uuid-lua",
	// A call that waits 10s for a lock nobody else holds is stuck; the run
	// ends at 60s, past a 30s lease.
	Setup: sim.Setup{LivenessBound: 10 * time.Second, Horizon: time.Minute},
	Script: func(t *sim.Timeline) {
		t.Client("A", sim.Program{Work: 5 * time.Second, Retry: 4 * time.Second, Reenter: true})
		t.Say("A takes the lock (TTL 30s) and reads the stock. Inside its critical section it calls a helper that takes the same lock itself (nested code: method a locks, calls method b, b locks). A retries every 4s; a call that waits 10s for a lock nobody else holds counts as stuck.",
			"A 拿锁（TTL 30 秒）并读库存。在临界区里它调用的一个函数也去获取同一把锁（层层嵌套：方法 a 加锁后调用方法 b，b 又加同一把锁）。A 每 4 秒重试一次；为一把别人都没持有的锁等 10 秒，就算卡住了。")
		t.RunToEnd()
	},
}
