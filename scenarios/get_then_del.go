package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// getThenDel: the GET-then-DEL race. A's release checks the token with GET and
// deletes with DEL — two commands. The scheduler stops A between them exactly
// when the lock expires; B takes it; A's DEL then removes B's lock; C takes
// it. The same timeline is harmless for a release that is one command (the
// Lua compare-and-delete): there is no "between".
var getThenDel = Scenario{
	ID: "get-then-del",
	Title: sim.Text{
		EN: "GET-then-DEL: the check and the delete are two commands",
		ZH: "GET 判断 + DEL：比对与删除是两条命令",
	},
	Summary: sim.Text{
		EN: "A's release stops between GET and DEL as the lock expires; B takes it; A's DEL removes B's lock; C gets in",
		ZH: "A 释放锁时停在 GET 与 DEL 之间，锁恰好过期；B 拿到锁；A 的 DEL 删掉了 B 的锁；C 又进来了",
	},
	Story: story("get-then-del"),
	Naive: "uuid-get-del",
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 29 * time.Second})
		t.Client("B", sim.Program{Start: time.Second, Retry: 10 * time.Second, Work: 20 * time.Second})
		t.Client("C", sim.Program{Start: 2 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock (TTL 30s) and works for 29s. B and C want it too and retry every 10s.",
			"A 拿锁（TTL 30 秒），干 29 秒的活。B 和 C 也想要这把锁，每 10 秒重试一次。")
		t.Say("The scheduler will stop A right after the first command of its release. A release that is a single command is already complete by then.",
			"调度器会让 A 在释放锁的第一条命令之后停下。如果释放只有一条命令，那时它已经完成了。")
		a.HoldAfter(sim.OpRelease, 1)
		t.RunUntil(31*time.Second + 500*time.Millisecond)
		t.Say("A goes on with the rest of its release, if there is any.",
			"A 继续执行释放的剩余部分（如果还有的话）。")
		a.Unhold()
		t.RunToEnd()
	},
}
