package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// setnxNoEX: a lock without a lease outlives its holder. A takes the lock and
// its process crashes; B retries for minutes. The scheduler stops A right
// after the first command of its acquire, so an implementation that needs two
// commands to take the lock and set its expiry (SETNX, then EXPIRE) is caught
// in between: its lock never expires either. SET NX EX cannot be split.
var setnxNoEX = Scenario{
	ID: "setnx-no-ex",
	Title: sim.Text{
		EN: "SETNX without EX: the holder crashes, the lock never expires",
		ZH: "SETNX 不带 EX：持有者崩溃，锁永不过期",
	},
	Summary: sim.Text{
		EN: "A crashes while holding the lock (right after the first command of its acquire); B retries for minutes",
		ZH: "A 持有锁时崩溃（加锁的第一条命令刚执行完）；B 重试了好几分钟",
	},
	Story: story("setnx-no-ex"),
	Naive: "setnx",
	Setup: sim.Setup{Horizon: 3 * time.Minute},
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 10 * time.Second})
		b := t.Client("B", sim.Program{Start: 5 * time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		_ = b
		t.Say("A takes the lock. The scheduler stops A right after the first command of its acquire; if the acquire needs more commands, the rest waits.",
			"A 开始加锁。调度器让 A 在加锁的第一条命令执行后停下；如果加锁需要不止一条命令，剩下的还没发出。")
		a.HoldAfter(sim.OpAcquire, 1)
		t.RunUntil(time.Second)
		t.Say("Now A's process dies (killed, out of memory, power cut). Whatever it wrote stays in Redis.",
			"此时 A 的进程崩溃了（被杀、内存溢出、断电）。它写进 Redis 的东西都还在。")
		a.Crash()
		t.Say("From t=5s B wants the same lock and retries every 10s. Without a TTL on the key, nothing ever frees it.",
			"从第 5 秒起 B 想要同一把锁，每 10 秒重试一次。如果这个 key 没有过期时间，就没有任何东西能释放它。")
		t.RunToEnd()
	},
}
