package narrate

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// This file narrates, in English and Chinese, what happens to the servers
// and to the clients' processes besides the lock's own commands: a key
// expiring, replication, a primary's death and Sentinel's failover, a
// server's crash, restart, rejoin, clock jump or slowness, a partition, the
// scheduler's holds, and a client's crash, pause or hang.

// Expired says key k ran out on server srv.
func Expired(k trace.KeyState, srv string) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s expires on %s: its TTL ran out (it held %s)", k.Key, srv, k.Value),
		ZH: fmt.Sprintf("%s 在 %s 上过期：TTL 到期（原值 %s）", k.Key, srv, k.Value),
	}
}

// Hang says client c's business goroutine hangs.
func Hang(c string) text.Text {
	return text.Text{EN: c + "'s business goroutine hangs (a call that never returns); the process and its watchdog, if any, stay alive",
		ZH: c + " 的业务线程卡死（调用一直不返回）；进程还活着，看门狗（如果有）也照常运行"}
}

// Unhang says client c's stuck call returns after d.
func Unhang(c string, d time.Duration) text.Text {
	return text.Text{EN: fmt.Sprintf("%s's stuck call returns after %s; its business goroutine goes on where it stopped", c, Secs(d)),
		ZH: fmt.Sprintf("%s 卡住的调用在 %s后返回；业务线程从停下的地方继续", c, SecsZH(d))}
}

// Slow says server srv turns slow by d (0: fast again).
func Slow(srv string, d time.Duration) text.Text {
	if d == 0 {
		return text.Text{EN: srv + " is fast again: commands reach it at once",
			ZH: srv + " 恢复正常：命令又能立刻到达"}
	}
	return text.Text{EN: fmt.Sprintf("%s turns slow: every command reaches it %s late", srv, Secs(d)),
		ZH: fmt.Sprintf("%s 变慢了：每条命令都要晚 %s才到达", srv, SecsZH(d))}
}

// gaveUpEN and gaveUpZH say that a client stopped waiting for a
// command on its way to a slow server.
func gaveUpEN(e *command.GaveUpError) string {
	return fmt.Sprintf("%s stops waiting after %s (%s): the command is still on its way to %s and reaches it at t=%s",
		e.Client, Secs(e.Waited), e.Err, e.Server, Secs(e.Due))
}

func gaveUpZH(e *command.GaveUpError) string {
	return fmt.Sprintf("%s 等了 %s没等到应答，不再等了（客户端报错：`%s`）；命令仍在发往 %s 的路上，第 %s才到达",
		e.Client, SecsZH(e.Waited), e.Err, e.Server, SecsZH(e.Due))
}

// SlowSend says actor a sends cmd to srv, a slow server: it arrives in d.
func SlowSend(a, cmd, srv string, d time.Duration) text.Text {
	who, _ := actorZH(a)
	return text.Text{EN: fmt.Sprintf("%s sends %s to %s, which is slow: it arrives in %s", a, cmd, srv, Secs(d)),
		ZH: zhCat(who, fmt.Sprintf("向 %s 发出 %s；%s 很慢，命令 %s后才到达", srv, cmd, srv, SecsZH(d)))}
}

// Held says the scheduler holds actor a: before its next command (next,
// as redis-cli shows it) or at program point point.
func Held(a, next string, point trace.Op) text.Text {
	who, node := actorZH(a)
	switch {
	case next != "" && node != "":
		return text.Text{EN: fmt.Sprintf("the scheduler holds %s before its next command: %s", a, next),
			ZH: fmt.Sprintf("调度器让 %s 停在发往 %s 的下一条命令之前：%s", who, node, next)}
	case next != "":
		return text.Text{EN: fmt.Sprintf("the scheduler holds %s before its next command: %s", a, next),
			ZH: "调度器让 " + zhCat(who, "停在下一条命令之前：") + next}
	case point == trace.OpWrite:
		return text.Text{EN: fmt.Sprintf("the scheduler holds %s just before it writes", a),
			ZH: "调度器让 " + zhCat(who, "停在写入之前")}
	default:
		return text.Text{EN: fmt.Sprintf("the scheduler holds %s here", a),
			ZH: "调度器让 " + zhCat(who, "停在这里")}
	}
}

// Unheld says the scheduler lets actor a go on.
func Unheld(a string) text.Text {
	who, node := actorZH(a)
	if node != "" {
		who += " 发往 " + node + " 的命令"
	}
	return text.Text{EN: "the scheduler lets " + a + " go on", ZH: "调度器让 " + zhCat(who, "继续执行")}
}

// Replicated says replica srv receives the primary's writes to keys.
func Replicated(srv string, keys []string) text.Text {
	return text.Text{EN: fmt.Sprintf("%s (replica) receives the primary's writes to %s", srv, AndList(keys)),
		ZH: fmt.Sprintf("%s（从库）收到主库对 %s 的写入", srv, strings.Join(keys, "、"))}
}

// ReplicatedReal says replica srv, a real server, receives the
// primary's writes.
func ReplicatedReal(srv string) text.Text {
	return text.Text{EN: srv + " (replica) receives the primary's writes",
		ZH: srv + "（从库）收到主库的写入"}
}

// PrimaryDied says a primary with a replica dies; Sentinel fails it over
// only down-after later (Promoted).
func PrimaryDied(dead string, lost int, downAfter time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s (primary) dies with %d write(s) not yet replicated; Sentinel fails it over only once it has been unreachable for down-after (%s): until then nothing answers for %s, and a client's command there fails", dead, lost, Secs(downAfter), dead),
		ZH: fmt.Sprintf("%s（主库）宕机，还有 %d 条写入没复制出去；哨兵要等它连续 %s无法访问，才会发起主从切换：在那之前没有谁替 %s 应答，客户端发往它的命令都会失败", dead, lost, SecsZH(downAfter), dead),
	}
}

// Promoted says Sentinel fails the primary over, down-after past its death.
func Promoted(dead, promoted string, downAfter time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("Sentinel has found %s unreachable for down-after (%s): the Sentinels agree it is down and elect a leader, which promotes %s to primary with the writes it had received (failover); a client's next command reaches %s", dead, Secs(downAfter), promoted, promoted),
		ZH: fmt.Sprintf("哨兵发现 %s 已连续 %s无法访问：哨兵们确认它下线，选出领头的哨兵，由它把 %s 提升为主库（主从切换），%s 只带着它已经收到的写入；客户端的下一条命令就会发到 %s", dead, SecsZH(downAfter), promoted, promoted, promoted),
	}
}

// NodeDown says server srv dies with its keys.
func NodeDown(srv string) text.Text {
	return text.Text{EN: srv + " dies; its keys are gone", ZH: srv + " 宕机，它上面的 key 全部丢失"}
}

// Partition says a network partition cuts client c off from servers.
func Partition(c string, servers []string) text.Text {
	return text.Text{EN: fmt.Sprintf("a network partition cuts %s off from %s: its commands there time out", c, AndList(servers)),
		ZH: fmt.Sprintf("网络分区：%s 连不上 %s，发过去的命令都会超时", c, strings.Join(servers, "、"))}
}

// DropReplies says the network between client c and servers breaks one
// way: the commands run, their replies are lost.
func DropReplies(c string, servers []string) text.Text {
	return text.Text{EN: fmt.Sprintf("the network between %s and %s breaks one way: %s's commands get there and run, but the replies are lost, and %s sees a timeout", c, AndList(servers), c, c),
		ZH: fmt.Sprintf("%s 与 %s 之间的网络单向中断：%s 的命令能到达并执行，但应答丢了，%s 只看到超时", c, strings.Join(servers, "、"), c, c)}
}

// Heal says client c's partition heals.
func Heal(c string) text.Text {
	return text.Text{EN: "the partition heals: " + c + " reaches every server again", ZH: "网络分区恢复：" + c + " 又能连上所有服务器"}
}

// ServerStopped says server srv crashes, without persistence.
func ServerStopped(srv string) text.Text {
	return text.Text{EN: srv + " crashes; it has no persistence (no AOF, no RDB), so its keys are gone with it",
		ZH: srv + " 崩溃；它没开持久化（没有 AOF/RDB），上面的 key 随之丢失"}
}

// ServerRestarted says server srv restarts empty.
func ServerRestarted(srv string) text.Text {
	return text.Text{EN: srv + " restarts empty: it knows nothing of the locks it held",
		ZH: srv + " 重启后是空的：它已经不记得自己持有过哪些锁"}
}

// ClockJump says server srv's clock jumps d forward, or, for d < 0, is set back.
func ClockJump(srv string, d time.Duration) text.Text {
	if d < 0 {
		return text.Text{EN: fmt.Sprintf("%s's clock is set back %s (an NTP step back, a manual date change): its keys' TTLs run out %s late, and nothing expires early", srv, Secs(-d), Secs(-d)),
			ZH: fmt.Sprintf("%s 的系统时钟被回拨了 %s（NTP 往回校时、手动改时间）：它上面的 key 晚 %s才过期，没有任何 key 提前过期", srv, SecsZH(-d), SecsZH(-d))}
	}
	return text.Text{EN: fmt.Sprintf("%s's clock jumps %s forward (an NTP step, a manual date change): its keys' TTLs run out %s early", srv, Secs(d), Secs(d)),
		ZH: fmt.Sprintf("%s 的系统时钟拨快了 %s（NTP 校时、手动改时间）：它上面的 key 提前 %s过期", srv, SecsZH(d), SecsZH(d))}
}

// ExpiredEarly says key k ran out on server srv by its jumped clock.
func ExpiredEarly(k trace.KeyState, srv string) text.Text {
	return text.Text{EN: fmt.Sprintf("%s expires on %s: by its clock the TTL has run out (it held %s)", k.Key, srv, k.Value),
		ZH: fmt.Sprintf("%s 在 %s 上过期：按它的时钟 TTL 已经用完（值为 %s）", k.Key, srv, k.Value)}
}

// Rejoined says server srv comes back as a replica of primary.
func Rejoined(srv, primary string) text.Text {
	return text.Text{EN: fmt.Sprintf("%s comes back and rejoins as a replica of %s: a full resync gives it %s's keys, and replication carries on from there", srv, primary, primary),
		ZH: fmt.Sprintf("%s 恢复后作为 %s 的从库重新加入：全量同步让它拿到 %s 的全部 key，之后照常复制", srv, primary, primary)}
}

// Crash says client c's process crashes.
func Crash(c string) text.Text {
	return text.Text{EN: c + "'s process crashes: it sends nothing more; its keys stay in Redis",
		ZH: c + " 的进程崩溃：不再发送任何命令；它写下的 key 仍留在 Redis 里"}
}

// Pause says client c's process stops the world.
func Pause(c string) text.Text {
	return text.Text{EN: c + "'s process stops the world (a long GC pause): all its goroutines and timers freeze, and it still believes what it believed",
		ZH: c + " 的进程发生长时间停顿（GC）：所有协程和定时器都被冻结，它仍然相信自己之前的判断"}
}

// Resume says client c's process wakes up after d.
func Resume(c string, d time.Duration) text.Text {
	return text.Text{EN: fmt.Sprintf("%s's process wakes up after %s, unaware of the pause", c, Secs(d)),
		ZH: fmt.Sprintf("%s 的进程在 %s后恢复运行，并不知道自己停顿过", c, SecsZH(d))}
}
