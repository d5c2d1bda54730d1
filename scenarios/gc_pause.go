package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// gcPause: the process pause. A holds the lock and is about to write when its
// whole process stops (a long GC pause): its watchdog freezes with it, the
// lease runs out, B takes the lock and writes. A wakes up still believing it
// holds the lock and writes its stale value. No lease-based lock can prevent
// this — checking "do I still hold it?" first only moves the window. Only a
// resource that checks fencing tokens (栅栏令牌) refuses the late write.
var gcPause = Scenario{
	ID: "gc-pause",
	Title: sim.Text{
		EN: "A GC pause outlives the lease",
		ZH: "GC 停顿超过了租约",
	},
	Summary: sim.Text{
		EN: "A pauses right before its write for longer than the TTL; B takes the lock and writes; A wakes and writes a stale value",
		ZH: "A 在写入前停顿，超过了 TTL；B 拿到锁并写入；A 醒来后写入了过期的数据",
	},
	Story: story("gc-pause"),
	Naive: "uuid-lua-watchdog",
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 5 * time.Second})
		t.Client("B", sim.Program{Start: time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock (TTL 30s), reads the stock and works for 5s. B wants the lock too and retries every 10s.",
			"A 拿锁（TTL 30 秒），读库存，干 5 秒的活。B 也想要这把锁，每 10 秒重试一次。")
		a.HoldAt(sim.OpWrite)
		t.RunUntil(5*time.Second + 500*time.Millisecond)
		t.Say("Right before A writes, its process stops the world for 40s. A watchdog, if it has one, is frozen too.",
			"就在 A 写入之前，它的进程停顿了 40 秒。如果有看门狗，看门狗也一起被冻结。")
		a.Pause()
		t.RunUntil(45*time.Second + 500*time.Millisecond)
		a.Resume()
		t.Say("A carries on exactly where it stopped: it writes what it computed before the pause.",
			"A 从停下的地方继续：写入它在停顿之前算好的值。")
		a.Unhold()
		t.RunToEnd()
	},
}
