package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// leaseTooShort: the TTL is shorter than the work. The lease was sized for
// the usual request (10s) and this one takes 25s; without renewal it runs out
// while A is still inside, B walks in, and A's late write loses B's update. A
// watchdog (看门狗续期) renews the lease while A works; a lock without any
// lease never lets B in early either.
var leaseTooShort = Scenario{
	ID: "lease-too-short",
	Title: sim.Text{
		EN: "The lease is shorter than the work",
		ZH: "锁的过期时间比业务耗时短",
	},
	Summary: sim.Text{
		EN: "A's work takes 25s under a 10s lease; B takes the expired lock while A works; A's late write loses B's update",
		ZH: "锁的 TTL 是 10 秒，A 的业务却要 25 秒；A 还在干活时锁过期，B 拿到了锁；A 迟到的写入覆盖了 B 的更新",
	},
	Story: story("lease-too-short"),
	Naive: "uuid-lua",
	Setup: sim.Setup{TTL: 10 * time.Second},
	Script: func(t *sim.Timeline) {
		t.Client("A", sim.Program{Work: 25 * time.Second})
		t.Client("B", sim.Program{Start: time.Second, Retry: 5 * time.Second, Work: 3 * time.Second})
		t.Say("The lease is 10s, sized for the usual request; this time A's work takes 25s (a slow query, the P99). B wants the same lock and retries every 5s.",
			"锁的 TTL 是 10 秒，按平常的请求估的；这一次 A 的业务要 25 秒（慢查询，P99）。B 也想要这把锁，每 5 秒重试一次。")
		t.RunUntil(10*time.Second + 500*time.Millisecond)
		t.Say("Past t=10s: unless something renewed it, the lease has run out while A is still working.",
			"过了第 10 秒：如果没有人续期，A 还在干活，锁已经过期了。")
		t.RunUntil(24 * time.Second)
		t.Say("At t=25s A finishes its work and writes what it computed from its read at t=0.",
			"第 25 秒 A 干完活，写入它根据第 0 秒读到的数据算出的结果。")
		t.RunToEnd()
	},
}
