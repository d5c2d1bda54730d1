package narrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/text"
)

// This file holds what the engine says, in English and Chinese, about a client
// and its lock: an attempt, its quorum and validity, a release, a nested
// call, a client giving up, a lost lock; and the helpers every narration
// uses (Secs, actorZH, errZH, zhCat, AndList). A command's own narration is
// in command.go, what happens to the servers and to the clients' processes
// in faults.go and sentinel.go, the resource's reads and writes in
// resource.go, the short labels in short.go; commands and replies as
// redis-cli shows them are package command's. The engine narrates what it
// observes; it never knows which implementation runs.

// Secs formats a duration as seconds: "30s", "0.5s".
func Secs(d time.Duration) string {
	return decimalSecs(d) + "s"
}

// SecsZH is Secs in Chinese: "30 秒".
func SecsZH(d time.Duration) string {
	return decimalSecs(d) + " 秒"
}

// decimalSecs writes d in seconds with as many decimals as it has, exactly:
// 7.262, not the float 7.2620000000000005.
func decimalSecs(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	whole, frac := int64(d/time.Second), int64(d%time.Second)
	if frac == 0 {
		return sign + strconv.FormatInt(whole, 10)
	}
	f := strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	return sign + strconv.FormatInt(whole, 10) + "." + f
}

// actorZH names an actor inside a Chinese sentence: "A", "A 的看门狗" for
// A.watchdog, "A 的 name 协程" for another goroutine A started. A flight
// ("A/redis-3", a command sent from a goroutine the lock code started
// itself) is named by its client, and node is the node it went to.
func actorZH(actor string) (who, node string) {
	if c, node, ok := strings.Cut(actor, "/"); ok {
		// "A/redis-2#2", a second command of A's on its way to redis-2:
		// it is A's on redis-2 all the same.
		node, _, _ = strings.Cut(node, "#")
		return c, node
	}
	if c, g, ok := strings.Cut(actor, "."); ok {
		if g == "watchdog" {
			return c + " 的看门狗", ""
		}
		return c + " 的 " + g + " 协程", ""
	}
	return actor, ""
}

// errZH says an error in Chinese. The errors the simulator makes itself (a
// server down, a network partition) are said in Chinese only: their
// English is lockstep's, not the client's. Any other error is the
// client's own (go-redis's, a library's), quoted as it came after a
// sentence that says what it is: 超时（客户端报错：`i/o timeout`). An error
// that is no timeout and no refused connection is quoted alone: every
// sentence that says one already says it failed (加锁出错：, 命令失败：),
// and "出错（客户端报错：…）" after it said so twice (issue #41).
func errZH(err error) string {
	var down *command.NodeDownError
	var cut *command.PartitionError
	raw := err.Error()
	switch {
	case errors.As(err, &down) && down.Lost:
		return down.Server + " 已宕机，连接中断"
	case errors.As(err, &down):
		return down.Server + " 已宕机，连不上"
	case errors.As(err, &cut) && cut.ReplyLost:
		return "命令在 " + cut.Server + " 上执行了，应答却因网络分区丢失，" + cut.Client + " 只看到超时"
	case errors.As(err, &cut):
		return "网络分区，" + cut.Client + " 连不上 " + cut.Server + "，超时"
	case strings.Contains(raw, "server is down"):
		// A real server lockstep stopped (realserver): its words too.
		return "服务器已宕机"
	}
	quoted := "（客户端报错：`" + strings.ReplaceAll(raw, "`", "'") + "`）"
	switch {
	case strings.Contains(raw, "timeout") || errors.Is(err, context.DeadlineExceeded):
		return "超时" + quoted
	case strings.Contains(raw, "connection refused"):
		return "连接被拒绝" + quoted
	}
	return "`" + strings.ReplaceAll(raw, "`", "'") + "`"
}

// zhCat joins a subject and a Chinese verb: a space after a Latin name
// ("A 加锁", "A 在 redis-3 上加锁"), none after a Chinese word ("A 的看门狗续期").
func zhCat(subject, verb string) string {
	if r, _ := utf8.DecodeLastRuneInString(subject); r < utf8.RuneSelf {
		return subject + " " + verb
	}
	return subject + verb
}

// Wants says client c wants the lock.
func Wants(c string) text.Text {
	return text.Text{EN: c + " wants the lock", ZH: c + " 想要获取锁"}
}

// Prep says client c prepares outside the lock for d.
func Prep(c string, d time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s prepares for %s outside the lock", c, Secs(d)),
		ZH: fmt.Sprintf("%s 在锁外做准备工作，耗时 %s", c, SecsZH(d)),
	}
}

// Fail says client c's work fails after d, and its finally block releases
// the lock.
func Fail(c string, d time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s's work fails with an error after %s; it writes nothing, and its finally block releases the lock", c, Secs(d)),
		ZH: fmt.Sprintf("%s 的业务执行 %s后抛出异常；它什么也不写，由 finally 块释放锁", c, SecsZH(d)),
	}
}

// Work says client c works in its critical section for d.
func Work(c string, d time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s works inside its critical section for %s", c, Secs(d)),
		ZH: fmt.Sprintf("%s 在临界区内执行业务，耗时 %s", c, SecsZH(d)),
	}
}

// Leaves says client c leaves its critical section and releases the lock.
func Leaves(c string) text.Text {
	return text.Text{EN: c + " leaves its critical section and releases the lock",
		ZH: c + " 离开临界区，释放锁"}
}

// Acquired says client c holds the lock, with its token and fencing
// token when it has them.
func Acquired(c, token string, fence int64) text.Text {
	en, zh := c+" now holds the lock", c+" 拿到了锁"
	if token != "" {
		en += " (token " + token + ")"
		zh += "（标识 " + token + "）"
	}
	if fence > 0 {
		en += fmt.Sprintf(" with fencing token %d", fence)
		zh += fmt.Sprintf("，栅栏令牌 %d", fence)
	}
	return text.Text{EN: en, ZH: zh}
}

// Refused says a client's attempt failed and when it tries again; retry
// < 0: it does not.
func Refused(c string, retry time.Duration, err error) text.Text {
	if retry < 0 {
		if err != nil {
			return text.Text{EN: fmt.Sprintf("%s's attempt fails (%v)", c, err),
				ZH: fmt.Sprintf("%s 加锁出错：%s", c, errZH(err))}
		}
		return text.Text{EN: c + " does not get the lock", ZH: c + " 没抢到锁"}
	}
	if err != nil {
		return text.Text{
			EN: fmt.Sprintf("%s's attempt fails (%v); it retries in %s", c, err, Secs(retry)),
			ZH: fmt.Sprintf("%s 加锁出错：%s；%s后重试", c, errZH(err), SecsZH(retry)),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("%s does not get the lock; it retries in %s", c, Secs(retry)),
		ZH: fmt.Sprintf("%s 没抢到锁，%s后重试", c, SecsZH(retry)),
	}
}

// Quorum counts, for a lock on several nodes, the nodes that said OK to
// c's attempt against the majority it needs, naming the nodes where the SET
// failed; acquired is what the lock made of it.
func Quorum(c string, ok, nodes int, failed []string, acquired bool) text.Text {
	need := nodes/2 + 1
	en := fmt.Sprintf("%s: %d of %d nodes said OK — ", c, ok, nodes)
	zh := fmt.Sprintf("%s：%d 个节点中 %d 个返回 OK——", c, nodes, ok)
	switch {
	case ok >= need && acquired:
		en += fmt.Sprintf("a majority (%d needed)", need)
		zh += fmt.Sprintf("达到多数派（需要 %d 个）", need)
	case ok >= need:
		en += fmt.Sprintf("a majority (%d needed), yet the attempt fails", need)
		zh += fmt.Sprintf("达到多数派（需要 %d 个），但这次加锁仍然失败", need)
	case acquired:
		en += fmt.Sprintf("not a majority (%d needed), yet the lock reports success", need)
		zh += fmt.Sprintf("未达到多数派（需要 %d 个），锁却报告加锁成功", need)
	default:
		en += fmt.Sprintf("not a majority (%d needed)", need)
		zh += fmt.Sprintf("未达到多数派（需要 %d 个）", need)
	}
	if len(failed) > 0 {
		en += "; the SET failed on " + AndList(failed)
		zh += "；发往 " + strings.Join(failed, "、") + " 的 SET 失败"
	}
	return text.Text{EN: en, ZH: zh}
}

// Validity continues a Redlock attempt's narration with the time it
// took against the lease: the validity the lock computed (TTL − elapsed −
// drift, the drift being what is left over), or, from a lock that does not
// report one, only the time the acquire took.
func Validity(ttl, elapsed, validity time.Duration, has, acquired bool) text.Text {
	took := text.Text{EN: fmt.Sprintf("; acquiring took %s of the %s lease", Secs(elapsed), Secs(ttl)),
		ZH: fmt.Sprintf("；加锁耗时 %s，租约 %s", SecsZH(elapsed), SecsZH(ttl))}
	if !has {
		return took
	}
	drift := ttl - elapsed - validity
	formula := text.Text{
		EN: fmt.Sprintf("; validity = %s TTL − %s elapsed − %s drift = %s", Secs(ttl), Secs(elapsed), Secs(drift), Secs(validity)),
		ZH: fmt.Sprintf("；有效期 = TTL %s − 耗时 %s − 时钟漂移 %s = %s", SecsZH(ttl), SecsZH(elapsed), SecsZH(drift), SecsZH(validity)),
	}
	switch {
	case validity > 0:
	case acquired:
		formula.EN += ": no time left, and the lock reports success anyway"
		formula.ZH += "：已经没有剩余时间，锁却仍然报告加锁成功"
	default:
		formula.EN += ": no time left, so the attempt fails"
		formula.ZH += "：已经没有剩余时间，所以这次加锁失败"
	}
	return formula
}

// AndList joins names as English does: "a", "a and b", "a, b and c".
func AndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// AndListZH joins names as Chinese lists them: "A、B 和 C".
func AndListZH(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], "、") + " 和 " + names[len(names)-1]
}

// Released says how c's release ended; sent: it sent a command (a
// release that sent none found no hold of c's in the lock code: an
// earlier release had given the lock back).
func Released(c string, err error, sent bool) text.Text {
	switch {
	case err == nil:
		return text.Text{EN: c + " has released the lock", ZH: c + " 释放锁完成"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return text.Text{EN: c + "'s release sends no command: the lock code has no token of " + c + "'s left (an earlier release gave the lock back), so it reports the lock not held",
			ZH: c + " 释放锁时没有发出任何命令：锁的代码里已经没有 " + c + " 的标识了（之前的一次释放已经把锁交还），于是报告锁不在 " + c + " 手里"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return text.Text{EN: c + "'s release found the lock was not its own and left it alone",
			ZH: c + " 释放时发现锁已不是自己的，没有删除"}
	default:
		return text.Text{EN: fmt.Sprintf("%s's release fails (%v)", c, err),
			ZH: fmt.Sprintf("%s 释放锁失败：%s", c, errZH(err))}
	}
}

// Reenter says client c's critical section takes the same lock again.
func Reenter(c string) text.Text {
	return text.Text{EN: c + "'s critical section calls code that takes the same lock again (a nested call)",
		ZH: c + " 的临界区调用了另一段代码，它再次获取同一把锁（嵌套调用）"}
}

// Reentered says client c's nested call has the lock too.
func Reentered(c string) text.Text {
	return text.Text{EN: c + "'s nested call has the lock too; it goes on",
		ZH: c + " 的嵌套调用也拿到了锁，继续执行"}
}

// SelfRefused says client c's nested attempt fails (err) or is refused by
// the lock c holds, and c retries in retry.
func SelfRefused(c string, retry time.Duration, err error) text.Text {
	if err != nil {
		return text.Text{
			EN: fmt.Sprintf("%s's nested attempt fails (%v); it retries in %s", c, err, Secs(retry)),
			ZH: fmt.Sprintf("%s 的嵌套加锁出错：%s；%s后重试", c, errZH(err), SecsZH(retry)),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("%s's nested call is refused by the lock %s holds itself; it retries in %s", c, c, Secs(retry)),
		ZH: fmt.Sprintf("%s 的嵌套调用被 %s 自己持有的锁挡住了，%s后重试", c, c, SecsZH(retry)),
	}
}

// Leave says client c's nested call gives the lock back.
func Leave(c string) text.Text {
	return text.Text{EN: c + "'s nested call is done and gives the lock back",
		ZH: c + " 的嵌套调用结束，释放锁"}
}

// Left says how client c's nested release ended; sent: it sent a command.
func Left(c string, err error, sent bool) text.Text {
	switch {
	case err == nil:
		return text.Text{EN: c + "'s nested call has released; the outer section goes on",
			ZH: c + " 的嵌套调用释放完成；外层临界区继续"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return text.Text{EN: c + "'s nested release sends no command: the lock code has no token of " + c + "'s left, so it reports the lock not held",
			ZH: c + " 的嵌套释放没有发出任何命令：锁的代码里已经没有 " + c + " 的标识了，于是报告锁不在 " + c + " 手里"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return text.Text{EN: c + "'s nested release found the lock was not its own",
			ZH: c + " 的嵌套释放发现锁已不是自己的"}
	default:
		return text.Text{EN: fmt.Sprintf("%s's nested release fails (%v)", c, err),
			ZH: fmt.Sprintf("%s 的嵌套释放失败：%s", c, errZH(err))}
	}
}

// LeftWithoutLock says client c's nested release took the lock with it.
func LeftWithoutLock(c string) text.Text {
	return text.Text{EN: c + "'s nested call has released, and the lock is gone with it: the outer section goes on without the lock",
		ZH: c + " 的嵌套调用释放完成，锁也随之没了：外层临界区在没有锁的情况下继续执行"}
}

// GaveUp says a client stopped trying, and what its tries cost.
func GaveUp(c string, attempts, cmds, servers int, waited time.Duration) text.Text {
	return text.Text{EN: fmt.Sprintf("%s gives up after %d attempt%s (%d command%s at the %s, %s)", c, attempts, Plural(attempts), cmds, Plural(cmds), serversEN(servers), Secs(waited)),
		ZH: fmt.Sprintf("%s 放弃加锁：尝试了 %d 次（服务器收到 %d 条命令，历时 %s）", c, attempts, cmds, SecsZH(waited))}
}

func serversEN(n int) string {
	if n > 1 {
		return "servers"
	}
	return "server"
}

// Waited is what the attempts before a client got the lock cost; empty
// when the first attempt got it.
func Waited(attempts, cmds, servers int, waited time.Duration) text.Text {
	if attempts < 2 {
		return text.Text{}
	}
	return text.Text{EN: fmt.Sprintf(", after %d attempts (%d commands at the %s) and %s of waiting", attempts, cmds, serversEN(servers), Secs(waited)),
		ZH: fmt.Sprintf("，此前尝试了 %d 次（服务器收到 %d 条命令），等了 %s", attempts, cmds, SecsZH(waited))}
}

// Lost says client c's watchdog found the lock no longer c's, and the
// program ignores the signal. holder is the client whose value the lock's
// key holds now ("" when the key is gone): a renewal that finds another's
// lock did not find it gone (issue #41 item 8).
func Lost(c, holder string, checks bool) text.Text {
	found := text.Text{EN: "found the lock gone", ZH: "发现锁已丢失"}
	if holder != "" {
		found = text.Text{EN: "found the lock taken by " + holder, ZH: "发现锁已被 " + holder + " 拿走"}
	}
	if checks {
		return text.Text{EN: c + "'s watchdog " + found.EN + " and tells " + c + " it no longer holds it; " + c + " looks at that signal before it writes",
			ZH: c + " 的看门狗" + found.ZH + "，通知 " + c + "：它不再持有锁；" + c + " 写入之前会先看这个信号"}
	}
	// The programs ignore the signal on purpose: code that never checks it
	// is common, and a check before each write still races with the expiry.
	return text.Text{EN: c + "'s watchdog " + found.EN + " and tells " + c + " it no longer holds it. This program ignores the signal and works on, as code that never checks it does; " +
		"even a check before each write races with the expiry: only a resource that refuses old fencing tokens is safe",
		ZH: c + " 的看门狗" + found.ZH + "，通知 " + c + "：它不再持有锁。这个程序不理会这个信号，照样干活——从不检查这个信号的代码就是这样；" +
			"即使每次写入前都检查，检查和写入之间锁仍可能过期：只有资源端拒绝旧的栅栏令牌（fencing token）才可靠"}
}

// Checking says client c, its work done, checks that it still holds the
// lock before it writes.
func Checking(c string) text.Text {
	return text.Text{EN: c + " checks that it still holds the lock before it writes",
		ZH: c + " 写入之前先检查锁是否还是自己的"}
}

// Checked says what client c's check before its write found: held, or
// not (by its watchdog's signal, or the value found on the key in place of
// its own claim); with no claim, there was nothing of its own to check.
func Checked(c string, held, byWatchdog bool, claim, found string, err error) text.Text {
	switch {
	case err != nil:
		return text.Text{EN: c + "'s check failed (" + err.Error() + "): it cannot tell that it holds the lock, so it writes nothing and releases",
			ZH: c + " 的检查失败了（" + errZH(err) + "）：它无法确认自己还持有锁，于是不写入，直接释放"}
	case byWatchdog:
		return text.Text{EN: c + "'s watchdog has said the lock is lost: " + c + " writes nothing and releases",
			ZH: c + " 的看门狗已经报告丢锁：" + c + " 不写入，直接释放"}
	case claim == "":
		return text.Text{EN: c + "'s acquire wrote nothing of its own on the lock's key, so there is nothing to check: " + c + " writes",
			ZH: c + " 加锁时没有在锁的键上写下自己的值，无从检查：" + c + " 照常写入"}
	case held:
		return text.Text{EN: c + " still finds its own value (" + claim + ") on the lock's key: it writes. Nothing stops the lock from expiring between this check and the write",
			ZH: c + " 在锁的键上仍然看到自己的值（" + claim + "）：它写入。但检查和写入之间，锁仍可能过期"}
	case found == "":
		return text.Text{EN: c + " finds the lock's key no longer holds its value (" + claim + "): it writes nothing and releases",
			ZH: c + " 发现锁的键上已不是自己的值（" + claim + "）：它不写入，直接释放"}
	}
	return text.Text{EN: c + " finds " + found + " on the lock's key in place of its own " + claim + ": it writes nothing and releases",
		ZH: c + " 发现锁的键上是 " + found + "，不再是自己的 " + claim + "：它不写入，直接释放"}
}

// Wait says how client c's WAIT for want replicas ended: got of them, or
// err.
func Wait(c string, want, got int64, err error) text.Text {
	if err != nil {
		return text.Text{EN: fmt.Sprintf("%s's WAIT fails (%v)", c, err), ZH: fmt.Sprintf("%s 的 WAIT 失败：%s", c, errZH(err))}
	}
	if got >= want {
		return text.Text{EN: fmt.Sprintf("%s's WAIT: %d replica(s) acknowledged every write so far, as asked", c, got),
			ZH: fmt.Sprintf("%s 的 WAIT：%d 个从库确认收到了之前的全部写入，满足要求", c, got)}
	}
	return text.Text{EN: fmt.Sprintf("%s's WAIT times out: %d of the %d replica(s) asked for acknowledged the write", c, got, want),
		ZH: fmt.Sprintf("%s 的 WAIT 超时：要求 %d 个从库确认，只有 %d 个确认", c, want, got)}
}

// BgStopped says actor a, client c's watchdog, stops after renewals
// renewals, its cap.
func BgStopped(a, c string, renewals int) text.Text {
	who, _ := actorZH(a)
	return text.Text{
		EN: fmt.Sprintf("%s stops after %d renewal%s (its cap): %s still holds the lock, and from now on nothing renews the lease", a, renewals, Plural(renewals), c),
		ZH: zhCat(who, fmt.Sprintf("续期 %d 次后达到上限，停止续期：%s 仍持有锁，从此再没有谁为租约续期", renewals, c)),
	}
}

// Plural is "s" for a count n that is not 1: English's plural ending.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ReadLock turns a reader's Wants or Acquired into the read lock's: "A
// wants the read lock", "A now holds the read lock". shares false: the
// client only reads, and its lock has no read mode, which Wants says.
func ReadLock(t text.Text, shares bool) text.Text {
	if !shares {
		if strings.HasSuffix(t.EN, " wants the lock") {
			t.EN += " to read: this lock has no read mode, so it takes the whole lock"
			t.ZH += "来读：这种锁没有读模式，只能整把锁拿下"
		}
		return t
	}
	t.EN = strings.Replace(t.EN, " the lock", " the read lock", 1)
	for _, zh := range []string{"获取锁", "拿到了锁"} {
		t.ZH = strings.Replace(t.ZH, zh, strings.TrimSuffix(zh, "锁")+"读锁", 1)
	}
	return t
}
