package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// redlockDelayedRestart is antirez's answer to redlock-restart: a crashed
// node stays out for longer than the longest TTL before it rejoins, so every
// lock it forgot has expired everywhere by then. The same timeline keeps
// mutual exclusion for every implementation; the price is availability.
var redlockDelayedRestart = Scenario{
	ID: "redlock-delayed-restart",
	Title: sim.Text{
		EN: "Delayed restart: the crashed node waits out the TTL",
		ZH: "延迟重启：崩溃的节点等 TTL 过完再回来",
	},
	Summary: sim.Text{
		EN: "As redlock-restart, but redis-3 stays down for 31s, longer than the TTL; B cannot gather a majority until A is done",
		ZH: "与 redlock-restart 相同，但 redis-3 停机 31 秒，超过 TTL；A 结束前 B 凑不齐多数派",
	},
	Story:      story("redlock-delayed-restart"),
	Naive:      "redlock",
	Mitigation: true,
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: 8 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		restartScript(t, a, 31*time.Second)
	},
}
