package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// redlockClockJump: one node's clock jumps forward. A holds the lock on
// exactly three of five nodes; redis-3's clock is stepped 40s ahead, A's key
// there expires at once, and B gathers redis-3..5. Redlock assumes clocks
// that run at about the same rate; a jump breaks that assumption. A single
// server whose clock jumps expires every lease early.
var redlockClockJump = Scenario{
	ID: "redlock-clock-jump",
	Title: sim.Text{
		EN: "A Redlock node's clock jumps forward",
		ZH: "Redlock 节点时钟跳变",
	},
	Summary: sim.Text{
		EN: "A holds redis-1..3 of five; redis-3's clock jumps 40s ahead and A's key there expires; B takes redis-3..5",
		ZH: "A 在五个节点中拿到 redis-1～3；redis-3 的时钟向前跳了 40 秒，A 在那里的锁提前过期；B 拿到 redis-3～5",
	},
	Story: story("redlock-clock-jump"),
	Naive: "redlock",
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: 8 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		threeOfFive(t, a)
		t.RunUntil(5 * time.Second)
		t.Say("At t=5s NTP steps redis-3's clock 40s forward (for a single-instance lock: its only server). Redis expires keys by its own clock.",
			"第 5 秒，NTP 把 redis-3 的时钟一下子往前调了 40 秒（单实例锁：它唯一的服务器）。Redis 按自己的时钟判断 key 是否过期。")
		t.ClockJump(2, 40*time.Second)
		t.RunToEnd()
	},
}
