package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// delOther: mis-deletion (误删). A's work outlasts the TTL; the lock expires;
// B takes it; A finishes and releases — with a plain DEL that removes B's
// lock; C takes it while B is still inside. A token checked before deleting
// stops the mis-deletion, but only renewal (a watchdog) keeps A and B apart.
var delOther = Scenario{
	ID: "del-other",
	Title: sim.Text{
		EN: "DEL of another holder's lock",
		ZH: "误删别人的锁",
	},
	Summary: sim.Text{
		EN: "A's work outlasts the TTL; B takes the expired lock; A's release deletes B's lock; C gets in while B works",
		ZH: "A 的业务超过了 TTL；锁过期后 B 拿到锁；A 释放时删掉了 B 的锁；B 还在干活时 C 又进来了",
	},
	Story: story("del-other"),
	Naive: "set-nx-ex",
	Script: func(t *sim.Timeline) {
		t.Client("A", sim.Program{Work: 40 * time.Second})
		t.Client("B", sim.Program{Start: time.Second, Retry: 10 * time.Second, Work: 30 * time.Second})
		t.Client("C", sim.Program{Start: 2 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock (TTL 30s) and starts work that takes 40s — a slow SQL query, a long GC. B and C want the same lock and retry every 10s.",
			"A 拿锁（TTL 30 秒）后开始干一件要 40 秒的活——慢 SQL、长 GC。B 和 C 也想要这把锁，每 10 秒重试一次。")
		t.RunUntil(30*time.Second + 500*time.Millisecond)
		t.Say("Past t=30s: unless something renewed it, the lease has run out while A is still working.",
			"过了第 30 秒：如果没有人续期，A 还在干活，锁已经过期了。")
		t.RunUntil(39 * time.Second)
		t.Say("At t=40s A finishes, writes, and releases the lock it believes is still its own.",
			"第 40 秒 A 干完活，写入数据，然后释放它以为还属于自己的锁。")
		t.RunToEnd()
	},
}
