package scenarios

import (
	"fmt"
	"time"

	"lockstep/scenarios/sim"
)

// redlockRestart: a Redlock node restarts without persistence. A holds the
// lock on exactly three of five nodes (a partition keeps it from the other
// two); one of its three crashes and comes back empty a second later; B finds
// three free nodes and has a majority too. A single server that restarts
// empty loses every lock it held, whatever the implementation.
var redlockRestart = Scenario{
	ID: "redlock-restart",
	Title: sim.Text{
		EN: "A Redlock node restarts without persistence",
		ZH: "Redlock 节点无持久化重启",
	},
	Summary: sim.Text{
		EN: "A holds redis-1..3 of five; redis-3 crashes and restarts empty; B takes redis-3..5, a second majority",
		ZH: "A 在五个节点中拿到 redis-1～3；redis-3 崩溃后空着重启；B 拿到 redis-3～5，又一个多数派",
	},
	Story: story("redlock-restart"),
	Naive: "redlock",
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: 8 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		restartScript(t, a, time.Second)
	},
}

// restartScript is the timeline the two restart scenarios share: A, cut off
// from redis-4 and redis-5, takes the lock on the other three; redis-3 (the
// only server of a single-instance lock) crashes at t=5s and restarts empty
// after down.
func restartScript(t *sim.Timeline, a *sim.Client, down time.Duration) {
	threeOfFive(t, a)
	t.RunUntil(5 * time.Second)
	t.Say("At t=5s the Redis process on redis-3 crashes (for a single-instance lock: its only server). Persistence is off, as it often is for a cache.",
		"第 5 秒，redis-3 上的 Redis 进程崩溃（单实例锁：它唯一的服务器）。持久化是关着的——拿 Redis 当缓存时常常如此。")
	t.StopServer(2)
	if down > sim.DefaultTTL {
		t.Say(fmt.Sprintf("The operators follow the delayed-restart rule: the node stays out for %s, longer than the longest TTL, so every lock it held has expired everywhere before it rejoins.", sim.Secs(down)),
			fmt.Sprintf("运维遵守延迟重启的规则：节点停机 %.0f 秒再重启，超过最长的 TTL，这样它曾持有的锁在所有节点上都已过期，再重新加入。", down.Seconds()))
	} else {
		t.Say("A supervisor restarts it a second later: up, and empty.",
			"守护进程一秒后就把它拉了起来：服务恢复了，数据是空的。")
	}
	t.RunUntil(5*time.Second + down)
	t.RestartServer(2)
	t.RunToEnd()
}

// threeOfFive cuts A off from redis-4 and redis-5, so that its Redlock stands
// on exactly three of five nodes: a majority that losing one node breaks.
func threeOfFive(t *sim.Timeline, a *sim.Client) {
	t.Say("A network partition keeps A from redis-4 and redis-5 (a single-instance lock has only redis-1). A takes the lock (TTL 30s) where it can and works for 20s; B will want it from t=8s and retries every 10s.",
		"网络分区让 A 连不上 redis-4 和 redis-5（单实例锁只有 redis-1）。A 在能连上的节点上加锁（TTL 30 秒），干 20 秒的活；B 从第 8 秒开始想要这把锁，每 10 秒重试一次。")
	a.Partition(3, 4)
}
