package scenarios

import (
	"time"

	"lockstep/scenarios/sim"
)

// hungHolder: the watchdog's own trap (看门狗无限续期). A's business goroutine
// hangs on a call that does not return, but its process is alive, and so is
// its watchdog: an uncapped watchdog renews the lease forever and nobody else
// ever gets the lock. A renewal cap lets the lease run out — and hands the
// lock to B while A's stuck thread still believes it holds it; when the call
// finally returns, A writes stale data unless the resource checks a fencing
// token.
var hungHolder = Scenario{
	ID: "hung-holder",
	Title: sim.Text{
		EN: "A hung holder and a watchdog that renews forever",
		ZH: "持有者卡死，看门狗无限续期",
	},
	Summary: sim.Text{
		EN: "A's business thread hangs while its process and watchdog live on; without a cap the lease is renewed forever; with one, B gets in and A's late write is stale",
		ZH: "A 的业务线程卡死，进程和看门狗却还活着；不设上限就无限续期；设了上限，B 能进来，但 A 醒来后的写入已经过期",
	},
	Story: story("hung-holder"),
	Naive: "uuid-lua-watchdog-uncapped",
	// The bound is longer than the worst a capped watchdog may keep a hung
	// holder's lock: 10 renewals every 10s, then one TTL (130s).
	Setup: sim.Setup{LivenessBound: 150 * time.Second},
	Script: func(t *sim.Timeline) {
		a := t.Client("A", sim.Program{Work: 20 * time.Second})
		t.Client("B", sim.Program{Start: time.Second, Retry: 10 * time.Second, Work: 5 * time.Second})
		t.Say("A takes the lock (TTL 30s) and starts 20s of work. B wants the lock too and retries every 10s. A waiting client counts as stuck after 150s, longer than a capped watchdog can keep a lock (10 renewals × 10s + 30s).",
			"A 拿锁（TTL 30 秒），开始 20 秒的业务。B 也想要这把锁，每 10 秒重试一次。等待超过 150 秒算作卡住——比有上限的看门狗最多能占用锁的时间（10 次续期 × 10 秒 + 30 秒）还长。")
		t.RunUntil(5*time.Second + 500*time.Millisecond)
		t.Say("At t=5.5s A's business thread calls a service that never answers (no timeout). The process is alive: its watchdog, if it has one, keeps running.",
			"第 5.5 秒，A 的业务线程调用了一个永远不响应的服务（没设超时）。进程还活着：如果有看门狗，它照常运行。")
		a.Hang()
		t.RunUntil(200*time.Second + 500*time.Millisecond)
		t.Say("At t=200.5s the stuck call finally returns; A carries on with what it read before it hung.",
			"第 200.5 秒，卡住的调用终于返回；A 拿着卡死之前读到的数据继续执行。")
		a.Unhang()
		t.RunToEnd()
	},
}
