package sim

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file holds every line the engine says, in English and Chinese. The
// engine narrates what it observes; it never knows which implementation runs.

// Secs formats a duration as seconds: "30s", "0.5s".
func Secs(d time.Duration) string {
	return decimalSecs(d) + "s"
}

func secsZH(d time.Duration) string {
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

func ttlText(k KeyState) (string, string) {
	if k.TTL < 0 {
		return "no TTL", "没有过期时间"
	}
	return "TTL " + Secs(k.TTL), "TTL " + secsZH(k.TTL)
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
// sentence that says what it is: 超时（客户端报错：`i/o timeout`）.
func errZH(err error) string {
	var down *NodeDownError
	var cut *PartitionError
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
	return "出错" + quoted
}

// zhCat joins a subject and a Chinese verb: a space after a Latin name
// ("A 加锁", "A 在 redis-3 上加锁"), none after a Chinese word ("A 的看门狗续期").
func zhCat(subject, verb string) string {
	if r, _ := utf8.DecodeLastRuneInString(subject); r < utf8.RuneSelf {
		return subject + " " + verb
	}
	return subject + verb
}

func textCommand(actor string, op Op, changes []change, err error) Text {
	en, zh := commandOf(actor, op)
	return commandText(en, zh, changes, err)
}

// textCommandLate is textCommand for a command that reaches its server
// after its client stopped waiting for it (an orphan): client gave up at
// gaveUp, and nobody reads the reply.
func textCommandLate(actor string, op Op, changes []change, err error, client string, gaveUp time.Duration) Text {
	en, zh := commandOf(actor, op)
	en += fmt.Sprintf(" (%s stopped waiting for it at t=%s; it arrives only now, and nobody reads the reply)", client, Secs(gaveUp))
	zh += fmt.Sprintf("（%s 在第 %s已不再等它；命令现在才到达，应答没有人读）", client, secsZH(gaveUp))
	return commandText(en, zh, changes, err)
}

// commandOf names what a command of actor is for: "A/redis-3's acquire",
// "A 在 redis-3 上加锁".
func commandOf(actor string, op Op) (en, zh string) {
	who, node := actorZH(actor)
	if node != "" {
		who += " 在 " + node + " 上"
	}
	switch op {
	case OpAcquire:
		en, zh = actor+"'s acquire", zhCat(who, "加锁")
	case OpRelease:
		en, zh = actor+"'s release", zhCat(who, "释放锁")
	case OpRenew:
		en, zh = actor+"'s renewal", zhCat(who, "续期")
	case OpReenter:
		en, zh = actor+"'s nested acquire", zhCat(who, "嵌套加锁")
	case OpLeave:
		en, zh = actor+"'s nested release", zhCat(who, "嵌套释放")
	default:
		en, zh = actor+"'s command", zhCat(who, "的命令")
		if node != "" {
			zh = strings.TrimSuffix(who, " 在 "+node+" 上") + " 发往 " + node + " 的命令"
		}
	}
	return en, zh
}

// commandText is a command's narration: what it was for (en, zh), then
// its failure and the changes it made.
func commandText(en, zh string, changes []change, err error) Text {
	var ens, zhs []string
	var late *GaveUpError
	var unsent *NotSentError
	if errors.As(err, &late) {
		ens = append(ens, textGaveUpEN(late))
		zhs = append(zhs, textGaveUpZH(late))
	} else if errors.As(err, &unsent) {
		ens = append(ens, fmt.Sprintf("its timeout passed before %s sent it (%s): the command is never sent", unsent.Client, unsent.Err))
		zhs = append(zhs, fmt.Sprintf("%s 还没发出它，超时时间就已经过了（客户端报错：`%s`）：这条命令不会再发出", unsent.Client, unsent.Err))
	} else if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// EVALSHA first, and on NOSCRIPT the whole script with EVAL: two
		// commands, one script call, sent by the code the gate found
		// (noscript.go).
		by := scriptFallback(err)
		ens = append(ens, "the server does not have the script cached yet (NOSCRIPT); "+by.EN+" sends it whole next (EVAL): one script call, two commands")
		zhs = append(zhs, "服务器上还没有缓存这段脚本（NOSCRIPT）；"+zhCat(by.ZH, "接着把整段脚本发过去（EVAL）：一次脚本调用，两条命令"))
	} else if errors.Is(err, redis.TxFailedErr) {
		ens = append(ens, "the transaction does nothing: a key it watches changed after its WATCH, so EXEC answers nil")
		zhs = append(zhs, "事务没有执行：它 WATCH 的键在 WATCH 之后被改过，EXEC 返回 nil")
	} else if !isReply(err) {
		ens = append(ens, "the command fails ("+err.Error()+")")
		zhs = append(zhs, "命令失败："+errZH(err))
	}
	for _, ch := range changes {
		e, z := describeChange(ch)
		ens = append(ens, e)
		zhs = append(zhs, z)
	}
	if len(ens) == 0 {
		ens, zhs = []string{"nothing changes"}, []string{"没有任何改变"}
	}
	return Text{EN: en + ": " + strings.Join(ens, "; "), ZH: zh + "：" + strings.Join(zhs, "；")}
}

func describeChange(ch change) (string, string) {
	a, b := ch.after, ch.before
	switch ch.kind {
	case changeCreated:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s = %s is written (%s)", a.Key, a.Value, te),
			fmt.Sprintf("写入 %s = %s（%s）", a.Key, a.Value, tz)
	case changeDeleted:
		return fmt.Sprintf("%s is deleted (it held %s, written by %s)", b.Key, b.Value, b.Writer),
			fmt.Sprintf("删除了 %s（原值 %s，由 %s 写入）", b.Key, b.Value, b.Writer)
	case changeValue:
		return fmt.Sprintf("%s is now %s", a.Key, a.Value),
			fmt.Sprintf("%s 变为 %s", a.Key, a.Value)
	case changeExtended:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s is extended (%s)", a.Key, te),
			fmt.Sprintf("%s 被续期（%s）", a.Key, tz)
	default:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s now has %s", a.Key, te),
			fmt.Sprintf("%s 设置了 %s", a.Key, tz)
	}
}

func textExpired(k KeyState, srv string) Text {
	return Text{
		EN: fmt.Sprintf("%s expires on %s: its TTL ran out (it held %s)", k.Key, srv, k.Value),
		ZH: fmt.Sprintf("%s 在 %s 上过期：TTL 到期（原值 %s）", k.Key, srv, k.Value),
	}
}

func textWants(c string) Text {
	return Text{EN: c + " wants the lock", ZH: c + " 想要获取锁"}
}

func textPrep(c string, d time.Duration) Text {
	return Text{
		EN: fmt.Sprintf("%s prepares for %s outside the lock", c, Secs(d)),
		ZH: fmt.Sprintf("%s 在锁外做准备工作，耗时 %s", c, secsZH(d)),
	}
}

func textFail(c string, d time.Duration) Text {
	return Text{
		EN: fmt.Sprintf("%s's work fails with an error after %s; it writes nothing, and its finally block releases the lock", c, Secs(d)),
		ZH: fmt.Sprintf("%s 的业务执行 %s后抛出异常；它什么也不写，由 finally 块释放锁", c, secsZH(d)),
	}
}

func textWork(c string, d time.Duration) Text {
	return Text{
		EN: fmt.Sprintf("%s works inside its critical section for %s", c, Secs(d)),
		ZH: fmt.Sprintf("%s 在临界区内执行业务，耗时 %s", c, secsZH(d)),
	}
}

func textLeaves(c string) Text {
	return Text{EN: c + " leaves its critical section and releases the lock",
		ZH: c + " 离开临界区，释放锁"}
}

func textAcquired(c, token string, fence int64) Text {
	en, zh := c+" now holds the lock", c+" 拿到了锁"
	if token != "" {
		en += " (token " + token + ")"
		zh += "（标识 " + token + "）"
	}
	if fence > 0 {
		en += fmt.Sprintf(" with fencing token %d", fence)
		zh += fmt.Sprintf("，栅栏令牌 %d", fence)
	}
	return Text{EN: en, ZH: zh}
}

// textRefused says a client's attempt failed and when it tries again; retry
// < 0: it does not.
func textRefused(c string, retry time.Duration, err error) Text {
	if retry < 0 {
		if err != nil {
			return Text{EN: fmt.Sprintf("%s's attempt fails (%v)", c, err),
				ZH: fmt.Sprintf("%s 加锁出错：%s", c, errZH(err))}
		}
		return Text{EN: c + " does not get the lock", ZH: c + " 没抢到锁"}
	}
	if err != nil {
		return Text{
			EN: fmt.Sprintf("%s's attempt fails (%v); it retries in %s", c, err, Secs(retry)),
			ZH: fmt.Sprintf("%s 加锁出错：%s；%s后重试", c, errZH(err), secsZH(retry)),
		}
	}
	return Text{
		EN: fmt.Sprintf("%s does not get the lock; it retries in %s", c, Secs(retry)),
		ZH: fmt.Sprintf("%s 没抢到锁，%s后重试", c, secsZH(retry)),
	}
}

// textQuorum counts, for a lock on several nodes, the nodes that said OK to
// c's attempt against the majority it needs, naming the nodes where the SET
// failed; acquired is what the lock made of it.
func textQuorum(c string, ok, nodes int, failed []string, acquired bool) Text {
	need := nodes/2 + 1
	en := fmt.Sprintf("%s: %d of %d nodes said OK — ", c, ok, nodes)
	zh := fmt.Sprintf("%s：%d 个节点中 %d 个返回 OK——", c, nodes, ok)
	switch {
	case ok >= need && acquired:
		en += fmt.Sprintf("a majority (%d needed)", need)
		zh += fmt.Sprintf("过半数（需要 %d 个）", need)
	case ok >= need:
		en += fmt.Sprintf("a majority (%d needed), yet the attempt fails", need)
		zh += fmt.Sprintf("过半数（需要 %d 个），但这次加锁仍然失败", need)
	case acquired:
		en += fmt.Sprintf("not a majority (%d needed), yet the lock reports success", need)
		zh += fmt.Sprintf("未过半数（需要 %d 个），锁却报告加锁成功", need)
	default:
		en += fmt.Sprintf("not a majority (%d needed)", need)
		zh += fmt.Sprintf("未过半数（需要 %d 个）", need)
	}
	if len(failed) > 0 {
		en += "; the SET failed on " + andList(failed)
		zh += "；发往 " + strings.Join(failed, "、") + " 的 SET 失败"
	}
	return Text{EN: en, ZH: zh}
}

// textValidity continues a Redlock attempt's narration with the time it
// took against the lease: the validity the lock computed (TTL − elapsed −
// drift, the drift being what is left over), or, from a lock that does not
// report one, only the time the acquire took.
func textValidity(ttl, elapsed, validity time.Duration, has, acquired bool) Text {
	took := Text{EN: fmt.Sprintf("; acquiring took %s of the %s lease", Secs(elapsed), Secs(ttl)),
		ZH: fmt.Sprintf("；加锁耗时 %s，租约 %s", secsZH(elapsed), secsZH(ttl))}
	if !has {
		return took
	}
	drift := ttl - elapsed - validity
	formula := Text{
		EN: fmt.Sprintf("; validity = %s TTL − %s elapsed − %s drift = %s", Secs(ttl), Secs(elapsed), Secs(drift), Secs(validity)),
		ZH: fmt.Sprintf("；有效期 = TTL %s − 耗时 %s − 时钟漂移 %s = %s", secsZH(ttl), secsZH(elapsed), secsZH(drift), secsZH(validity)),
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

// andList joins names as English does: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// zhAndList joins names as Chinese lists them: "A、B 和 C".
func zhAndList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], "、") + " 和 " + names[len(names)-1]
}

// textReleased says how c's release ended; sent: it sent a command (a
// release that sent none found no hold of c's in the lock code: an
// earlier release had given the lock back).
func textReleased(c string, err error, sent bool) Text {
	switch {
	case err == nil:
		return Text{EN: c + " has released the lock", ZH: c + " 释放锁完成"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return Text{EN: c + "'s release sends no command: the lock code has no token of " + c + "'s left (an earlier release gave the lock back), so it reports the lock not held",
			ZH: c + " 释放锁时没有发出任何命令：锁的代码里已经没有 " + c + " 的标识了（之前的一次释放已经把锁交还），于是报告锁不在 " + c + " 手里"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return Text{EN: c + "'s release found the lock was not its own and left it alone",
			ZH: c + " 释放时发现锁已不是自己的，没有删除"}
	default:
		return Text{EN: fmt.Sprintf("%s's release fails (%v)", c, err),
			ZH: fmt.Sprintf("%s 释放锁失败：%s", c, errZH(err))}
	}
}

func textReenter(c string) Text {
	return Text{EN: c + "'s critical section calls code that takes the same lock again (a nested call)",
		ZH: c + " 的临界区调用了另一段代码，它再次获取同一把锁（嵌套调用）"}
}

func textReentered(c string) Text {
	return Text{EN: c + "'s nested call has the lock too; it goes on",
		ZH: c + " 的嵌套调用也拿到了锁，继续执行"}
}

func textSelfRefused(c string, retry time.Duration, err error) Text {
	if err != nil {
		return Text{
			EN: fmt.Sprintf("%s's nested attempt fails (%v); it retries in %s", c, err, Secs(retry)),
			ZH: fmt.Sprintf("%s 的嵌套加锁出错：%s；%s后重试", c, errZH(err), secsZH(retry)),
		}
	}
	return Text{
		EN: fmt.Sprintf("%s's nested call is refused by the lock %s holds itself; it retries in %s", c, c, Secs(retry)),
		ZH: fmt.Sprintf("%s 的嵌套调用被 %s 自己持有的锁挡住了，%s后重试", c, c, secsZH(retry)),
	}
}

func textLeave(c string) Text {
	return Text{EN: c + "'s nested call is done and gives the lock back",
		ZH: c + " 的嵌套调用结束，释放锁"}
}

func textLeft(c string, err error, sent bool) Text {
	switch {
	case err == nil:
		return Text{EN: c + "'s nested call has released; the outer section goes on",
			ZH: c + " 的嵌套调用释放完成；外层临界区继续"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return Text{EN: c + "'s nested release sends no command: the lock code has no token of " + c + "'s left, so it reports the lock not held",
			ZH: c + " 的嵌套释放没有发出任何命令：锁的代码里已经没有 " + c + " 的标识了，于是报告锁不在 " + c + " 手里"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return Text{EN: c + "'s nested release found the lock was not its own",
			ZH: c + " 的嵌套释放发现锁已不是自己的"}
	default:
		return Text{EN: fmt.Sprintf("%s's nested release fails (%v)", c, err),
			ZH: fmt.Sprintf("%s 的嵌套释放失败：%s", c, errZH(err))}
	}
}

func textLeftWithoutLock(c string) Text {
	return Text{EN: c + "'s nested call has released, and the lock is gone with it: the outer section goes on without the lock",
		ZH: c + " 的嵌套调用释放完成，锁也随之没了：外层临界区在没有锁的情况下继续执行"}
}

func textHang(c string) Text {
	return Text{EN: c + "'s business goroutine hangs (a call that never returns); the process and its watchdog, if any, stay alive",
		ZH: c + " 的业务线程卡死（调用一直不返回）；进程还活着，看门狗（如果有）也照常运行"}
}

func textUnhang(c string, d time.Duration) Text {
	return Text{EN: fmt.Sprintf("%s's stuck call returns after %s; its business goroutine goes on where it stopped", c, Secs(d)),
		ZH: fmt.Sprintf("%s 卡住的调用在 %s后返回；业务线程从停下的地方继续", c, secsZH(d))}
}

// textGaveUp says a client stopped trying, and what its tries cost.
func textGaveUp(c string, attempts, cmds, servers int, waited time.Duration) Text {
	return Text{EN: fmt.Sprintf("%s gives up after %d attempt%s (%d command%s at the %s, %s)", c, attempts, plural(attempts), cmds, plural(cmds), serversEN(servers), Secs(waited)),
		ZH: fmt.Sprintf("%s 放弃加锁：尝试了 %d 次（服务器收到 %d 条命令，历时 %s）", c, attempts, cmds, secsZH(waited))}
}

func serversEN(n int) string {
	if n > 1 {
		return "servers"
	}
	return "server"
}

// textWaited is what the attempts before a client got the lock cost; empty
// when the first attempt got it.
func textWaited(attempts, cmds, servers int, waited time.Duration) Text {
	if attempts < 2 {
		return Text{}
	}
	return Text{EN: fmt.Sprintf(", after %d attempts (%d commands at the %s) and %s of waiting", attempts, cmds, serversEN(servers), Secs(waited)),
		ZH: fmt.Sprintf("，此前尝试了 %d 次（服务器收到 %d 条命令），等了 %s", attempts, cmds, secsZH(waited))}
}

func textLost(c string) Text {
	// The programs ignore the signal on purpose: code that never checks it
	// is common, and a check before each write still races with the expiry.
	return Text{EN: c + "'s watchdog found the lock gone and tells " + c + " it no longer holds it. This program ignores the signal and works on, as code that never checks it does; " +
		"even a check before each write races with the expiry: only a resource that refuses old fencing tokens is safe",
		ZH: c + " 的看门狗发现锁已丢失，通知 " + c + "：它不再持有锁。这个程序不理会这个信号，照样干活——从不检查这个信号的代码就是这样；" +
			"即使每次写入前都检查，检查和写入之间锁仍可能过期：只有资源端拒绝旧的栅栏令牌（fencing token）才可靠"}
}

func textRead(c, res string, v int) Text {
	return Text{EN: fmt.Sprintf("%s reads %s = %d", c, res, v),
		ZH: fmt.Sprintf("%s 读取 %s = %d", c, res, v)}
}

// textStamp adds to a read, with GuardToken, the stamp of the reader's lock
// token on the row.
func textStamp(read Text, token string) Text {
	return Text{EN: read.EN + fmt.Sprintf(" and stamps the row with its lock token %s: only a write with that token will land", tokenName(token)),
		ZH: read.ZH + fmt.Sprintf("，并在这一行记下它的唯一标识 %s：只有带着这个标识的写入才会生效", tokenName(token))}
}

// tokenName is a lock token as the resource shows it: quoted, as SQL
// would have it; two quotes around nothing for a client that has none.
func tokenName(token string) string { return "'" + token + "'" }

func textWrite(c, res string, r writeResult) Text {
	switch r.guard {
	case GuardVersion:
		return Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: it read version %d, the row is at version %d now (UPDATE … WHERE version = %d matches no row)", c, res, r.value, r.readVer, r.version, r.readVer),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：它读到的是第 %d 版，现在已是第 %d 版（UPDATE … WHERE version = %d 一行也没有更新）", c, res, r.value, r.readVer, r.version, r.readVer),
		}
	case GuardInStock:
		return Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the stock is already %d (UPDATE … WHERE stock > 0 matches no row)", c, res, r.value, r.stock),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：库存已经是 %d（UPDATE … WHERE stock > 0 一行也没有更新）", c, res, r.value, r.stock),
		}
	case GuardRelative:
		return Text{
			EN: fmt.Sprintf("the store refuses %s's sale: the stock is already %d (%s matches no row)", c, r.stock, sqlRelative),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售：库存已经是 %d（%s 一行也没有更新）", c, r.stock, sqlRelative),
		}
	case GuardUnique:
		return Text{
			EN: fmt.Sprintf("the store refuses %s's sale of unit #%d: an order for that unit exists already (unique key on product and unit)", c, r.read),
			ZH: fmt.Sprintf("资源端拒绝了 %s 卖出第 %d 件：这一件的订单已经存在（商品与件号上的唯一约束）", c, r.read),
		}
	case GuardToken:
		return Text{
			EN: fmt.Sprintf("the store refuses %s's write of %s = %d: the row carries lock token %s, %s's is %s (UPDATE … WHERE lock_token = %s matches no row)", c, res, r.value, tokenName(r.owner), c, tokenName(r.token), tokenName(r.token)),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：这一行记着的唯一标识是 %s，%s 的是 %s（UPDATE … WHERE lock_token = %s 一行也没有更新）", c, res, r.value, tokenName(r.owner), c, tokenName(r.token), tokenName(r.token)),
		}
	}
	if r.relative {
		return textRelative(c, res, r)
	}
	if r.rejected {
		return Text{
			EN: fmt.Sprintf("the store rejects %s's write of %s = %d: fencing token %d < %d already seen", c, res, r.value, r.fence, r.maxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的写入 %s = %d：栅栏令牌 %d < 已见过的 %d", c, res, r.value, r.fence, r.maxFence),
		}
	}
	en := fmt.Sprintf("%s writes %s = %d", c, res, r.value)
	zh := fmt.Sprintf("%s 写入 %s = %d", c, res, r.value)
	if r.stamped {
		en += fmt.Sprintf(": the row carries lock token %s, the one %s shows", tokenName(r.owner), c)
		zh += fmt.Sprintf("：这一行记着的唯一标识是 %s，正是 %s 出示的那个", tokenName(r.owner), c)
	}
	if r.fence > 0 {
		en += fmt.Sprintf(" with fencing token %d", r.fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.fence)
	}
	return Text{EN: en, ZH: zh}
}

// sqlRelative is GuardRelative's sale, as the narration quotes it.
const sqlRelative = "UPDATE … SET stock = stock - 1 WHERE stock > 0"

// textRelative is a sale with GuardRelative that no guard refused: a
// decrement of the stock as it is, which a fencing token may still refuse.
func textRelative(c, res string, r writeResult) Text {
	if r.rejected {
		return Text{
			EN: fmt.Sprintf("the store rejects %s's sale (%s): fencing token %d < %d already seen", c, sqlRelative, r.fence, r.maxFence),
			ZH: fmt.Sprintf("资源端拒绝了 %s 的这次销售（%s）：栅栏令牌 %d < 已见过的 %d", c, sqlRelative, r.fence, r.maxFence),
		}
	}
	en := fmt.Sprintf("%s sells one: %s takes %s from %d to %d", c, sqlRelative, res, r.stock, r.value)
	zh := fmt.Sprintf("%s 卖出一件：%s 把 %s 从 %d 减到 %d", c, sqlRelative, res, r.stock, r.value)
	if r.read != r.stock {
		en += fmt.Sprintf(" — the stock as it is now, not the %d %s read: no sale is lost", r.read, c)
		zh += fmt.Sprintf("——减的是现在的库存，不是 %s 读到的 %d：没有丢失任何一次销售", c, r.read)
	}
	if r.fence > 0 {
		en += fmt.Sprintf(" (fencing token %d)", r.fence)
		zh += fmt.Sprintf("（栅栏令牌 %d）", r.fence)
	}
	return Text{EN: en, ZH: zh}
}

func textSlow(srv string, d time.Duration) Text {
	if d == 0 {
		return Text{EN: srv + " is fast again: commands reach it at once",
			ZH: srv + " 恢复正常：命令又能立刻到达"}
	}
	return Text{EN: fmt.Sprintf("%s turns slow: every command reaches it %s late", srv, Secs(d)),
		ZH: fmt.Sprintf("%s 变慢了：每条命令都要晚 %s才到达", srv, secsZH(d))}
}

func slowShort(d time.Duration) Text {
	if d == 0 {
		return Text{EN: "fast again", ZH: "恢复"}
	}
	return Text{EN: "slow +" + Secs(d), ZH: "变慢 +" + secsZH(d)}
}

// textGaveUpEN and textGaveUpZH say that a client stopped waiting for a
// command on its way to a slow server.
func textGaveUpEN(e *GaveUpError) string {
	return fmt.Sprintf("%s stops waiting after %s (%s): the command is still on its way to %s and reaches it at t=%s",
		e.Client, Secs(e.Waited), e.Err, e.Server, Secs(e.Due))
}

func textGaveUpZH(e *GaveUpError) string {
	return fmt.Sprintf("%s 等了 %s没等到应答，不再等了（客户端报错：`%s`）；命令仍在发往 %s 的路上，第 %s才到达",
		e.Client, secsZH(e.Waited), e.Err, e.Server, secsZH(e.Due))
}

func textSlowSend(a, cmd, srv string, d time.Duration) Text {
	who, _ := actorZH(a)
	return Text{EN: fmt.Sprintf("%s sends %s to %s, which is slow: it arrives in %s", a, cmd, srv, Secs(d)),
		ZH: zhCat(who, fmt.Sprintf("向 %s 发出 %s；%s 很慢，命令 %s后才到达", srv, cmd, srv, secsZH(d)))}
}

func textSoldOut(c string, read int) Text {
	return Text{EN: fmt.Sprintf("%s read a stock of %d: sold out, it sells nothing and writes nothing", c, read),
		ZH: fmt.Sprintf("%s 读到的库存是 %d：已售罄，不卖也不写", c, read)}
}

func textHeld(a, next string, point Op) Text {
	who, node := actorZH(a)
	switch {
	case next != "" && node != "":
		return Text{EN: fmt.Sprintf("the scheduler holds %s before its next command: %s", a, next),
			ZH: fmt.Sprintf("调度器让 %s 停在发往 %s 的下一条命令之前：%s", who, node, next)}
	case next != "":
		return Text{EN: fmt.Sprintf("the scheduler holds %s before its next command: %s", a, next),
			ZH: "调度器让 " + zhCat(who, "停在下一条命令之前：") + next}
	case point == OpWrite:
		return Text{EN: fmt.Sprintf("the scheduler holds %s just before it writes", a),
			ZH: "调度器让 " + zhCat(who, "停在写入之前")}
	default:
		return Text{EN: fmt.Sprintf("the scheduler holds %s here", a),
			ZH: "调度器让 " + zhCat(who, "停在这里")}
	}
}

func textUnheld(a string) Text {
	who, node := actorZH(a)
	if node != "" {
		who += " 发往 " + node + " 的命令"
	}
	return Text{EN: "the scheduler lets " + a + " go on", ZH: "调度器让 " + zhCat(who, "继续执行")}
}

func textReplicated(srv string, keys []string) Text {
	return Text{EN: fmt.Sprintf("%s (replica) receives the primary's writes to %s", srv, andList(keys)),
		ZH: fmt.Sprintf("%s（从库）收到主库对 %s 的写入", srv, strings.Join(keys, "、"))}
}

func textReplicatedReal(srv string) Text {
	return Text{EN: srv + " (replica) receives the primary's writes",
		ZH: srv + "（从库）收到主库的写入"}
}

// textPrimaryDied: a primary with a replica dies; Sentinel fails it over
// only down-after later (textPromoted).
func textPrimaryDied(dead string, lost int, downAfter time.Duration) Text {
	return Text{
		EN: fmt.Sprintf("%s (primary) dies with %d write(s) not yet replicated; Sentinel fails it over only once it has been unreachable for down-after (%s): until then nothing answers for %s, and a client's command there fails", dead, lost, Secs(downAfter), dead),
		ZH: fmt.Sprintf("%s（主库）宕机，还有 %d 条写入没复制出去；哨兵要等它连续 %s 无法访问，才会发起主从切换：在那之前没有谁替 %s 应答，客户端发往它的命令都会失败", dead, lost, secsZH(downAfter), dead),
	}
}

// textPromoted: Sentinel's failover, down-after past the primary's death.
func textPromoted(dead, promoted string, downAfter time.Duration) Text {
	return Text{
		EN: fmt.Sprintf("Sentinel has found %s unreachable for down-after (%s): the Sentinels agree it is down and elect a leader, which promotes %s to primary with the writes it had received (failover); a client's next command reaches %s", dead, Secs(downAfter), promoted, promoted),
		ZH: fmt.Sprintf("哨兵发现 %s 已连续 %s 无法访问：哨兵们确认它下线，选出领头的哨兵，由它把 %s 提升为主库（主从切换），%s 只带着它已经收到的写入；客户端的下一条命令就会发到 %s", dead, secsZH(downAfter), promoted, promoted, promoted),
	}
}

func textNodeDown(srv string) Text {
	return Text{EN: srv + " dies; its keys are gone", ZH: srv + " 宕机，它上面的 key 全部丢失"}
}

func textPartition(c string, servers []string) Text {
	return Text{EN: fmt.Sprintf("a network partition cuts %s off from %s: its commands there time out", c, andList(servers)),
		ZH: fmt.Sprintf("网络分区：%s 连不上 %s，发过去的命令都会超时", c, strings.Join(servers, "、"))}
}

func textDropReplies(c string, servers []string) Text {
	return Text{EN: fmt.Sprintf("the network between %s and %s breaks one way: %s's commands get there and run, but the replies are lost, and %s sees a timeout", c, andList(servers), c, c),
		ZH: fmt.Sprintf("%s 与 %s 之间的网络单向中断：%s 的命令能到达并执行，但应答丢了，%s 只看到超时", c, strings.Join(servers, "、"), c, c)}
}

func textHeal(c string) Text {
	return Text{EN: "the partition heals: " + c + " reaches every server again", ZH: "网络分区恢复：" + c + " 又能连上所有服务器"}
}

func textServerStopped(srv string) Text {
	return Text{EN: srv + " crashes; it has no persistence (no AOF, no RDB), so its keys are gone with it",
		ZH: srv + " 崩溃；它没开持久化（没有 AOF/RDB），上面的 key 随之丢失"}
}

func textServerRestarted(srv string) Text {
	return Text{EN: srv + " restarts empty: it knows nothing of the locks it held",
		ZH: srv + " 重启后是空的：它已经不记得自己持有过哪些锁"}
}

func textClockJump(srv string, d time.Duration) Text {
	return Text{EN: fmt.Sprintf("%s's clock jumps %s forward (an NTP step, a manual date change): its keys' TTLs run out %s early", srv, Secs(d), Secs(d)),
		ZH: fmt.Sprintf("%s 的系统时钟拨快了 %s（NTP 校时、手动改时间）：它上面的 key 提前 %s过期", srv, secsZH(d), secsZH(d))}
}

func textExpiredEarly(k KeyState, srv string) Text {
	return Text{EN: fmt.Sprintf("%s expires on %s: by its clock the TTL has run out (it held %s)", k.Key, srv, k.Value),
		ZH: fmt.Sprintf("%s 在 %s 上过期：按它的时钟 TTL 已经用完（值为 %s）", k.Key, srv, k.Value)}
}

func textRejoined(srv, primary string) Text {
	return Text{EN: fmt.Sprintf("%s comes back and rejoins as a replica of %s: a full resync gives it %s's keys, and replication carries on from there", srv, primary, primary),
		ZH: fmt.Sprintf("%s 恢复后作为 %s 的从库重新加入：全量同步让它拿到 %s 的全部 key，之后照常复制", srv, primary, primary)}
}

func textWait(c string, want, got int64, err error) Text {
	if err != nil {
		return Text{EN: fmt.Sprintf("%s's WAIT fails (%v)", c, err), ZH: fmt.Sprintf("%s 的 WAIT 失败：%s", c, errZH(err))}
	}
	if got >= want {
		return Text{EN: fmt.Sprintf("%s's WAIT: %d replica(s) acknowledged every write so far, as asked", c, got),
			ZH: fmt.Sprintf("%s 的 WAIT：%d 个从库确认收到了之前的全部写入，满足要求", c, got)}
	}
	return Text{EN: fmt.Sprintf("%s's WAIT times out: %d of the %d replica(s) asked for acknowledged the write", c, got, want),
		ZH: fmt.Sprintf("%s 的 WAIT 超时：要求 %d 个从库确认，只有 %d 个确认", c, want, got)}
}

func textCrash(c string) Text {
	return Text{EN: c + "'s process crashes: it sends nothing more; its keys stay in Redis",
		ZH: c + " 的进程崩溃：不再发送任何命令；它写下的 key 仍留在 Redis 里"}
}

func textPause(c string) Text {
	return Text{EN: c + "'s process stops the world (a long GC pause): all its goroutines and timers freeze, and it still believes what it believed",
		ZH: c + " 的进程发生长时间停顿（GC）：所有协程和定时器都被冻结，它仍然相信自己之前的判断"}
}

func textResume(c string, d time.Duration) Text {
	return Text{EN: fmt.Sprintf("%s's process wakes up after %s, unaware of the pause", c, Secs(d)),
		ZH: fmt.Sprintf("%s 的进程在 %s后恢复运行，并不知道自己停顿过", c, secsZH(d))}
}

func textBgStopped(a, c string, renewals int) Text {
	who, _ := actorZH(a)
	return Text{
		EN: fmt.Sprintf("%s stops after %d renewal%s (its cap): %s still holds the lock, and from now on nothing renews the lease", a, renewals, plural(renewals), c),
		ZH: zhCat(who, fmt.Sprintf("续期 %d 次后达到上限，停止续期：%s 仍持有锁，从此再没有谁为租约续期", renewals, c)),
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// --- short labels -------------------------------------------------------

// same is a label that reads the same in both languages.
func same(s string) Text { return Text{EN: s, ZH: s} }

// shortCommand is a command and its reply in a few words: "SET NX → OK",
// "EVAL release → 1", "GET → A#1".
func shortCommand(cmd redis.Cmder, err error) string {
	if inBatch(cmd) {
		name := "EXEC"
		switch r := formatReply(cmd, err); {
		case r == "(nil)":
			return name + " → nil" // a watched key changed: nothing ran
		case strings.HasPrefix(r, "(error) "):
			return name + " → ERR"
		}
		return name + " → OK"
	}
	args := cmdArgs(cmd)
	name := strings.ToUpper(args[0])
	switch name {
	case "SET":
		for _, a := range args[3:] {
			if strings.EqualFold(a, "nx") {
				name += " NX"
			}
		}
	case "EVAL", "EVALSHA":
		if len(args) > 1 && strings.HasPrefix(args[1], "-- ") {
			script, _, _ := strings.Cut(strings.TrimPrefix(args[1], "-- "), ":")
			name += " " + script
		}
	}
	reply := formatReply(cmd, err)
	switch {
	case strings.HasPrefix(reply, "(integer) "):
		reply = strings.TrimPrefix(reply, "(integer) ")
	case reply == "(nil)":
		reply = "nil"
	case strings.HasPrefix(reply, "(error) "):
		reply = "ERR"
	default:
		if v, ok := stringReply(cmd); ok {
			reply = Cut(v, MaxValue) // a few words: no more of a value than a snapshot shows
		} else if u, err := strconv.Unquote(reply); err == nil {
			reply = u
		}
	}
	return name + " → " + reply
}

func shortAcquired(token string, fence int64) Text {
	t := Text{EN: "holds", ZH: "持有"}
	if token != "" {
		t.EN += " " + token
		t.ZH += " " + token
	}
	if fence > 0 {
		t.EN += fmt.Sprintf(" ⚑%d", fence)
		t.ZH += fmt.Sprintf(" ⚑%d", fence)
	}
	return t
}

func shortQuorum(ok, nodes int) Text {
	if ok >= nodes/2+1 {
		return Text{EN: fmt.Sprintf("%d/%d OK: majority", ok, nodes), ZH: fmt.Sprintf("%d/%d OK：过半数", ok, nodes)}
	}
	return Text{EN: fmt.Sprintf("%d/%d OK: no majority", ok, nodes), ZH: fmt.Sprintf("%d/%d OK：未过半数", ok, nodes)}
}

func shortRefused(err error) Text {
	if err != nil {
		return Text{EN: "error", ZH: "出错"}
	}
	return Text{EN: "refused", ZH: "没抢到"}
}

func shortReleased(err error, sent bool) Text {
	switch {
	case err == nil:
		return Text{EN: "released", ZH: "已释放"}
	case errors.Is(err, lockimpl.ErrNotHeld) && !sent:
		return Text{EN: "nothing to release", ZH: "无锁可放"}
	case errors.Is(err, lockimpl.ErrNotHeld):
		return Text{EN: "not its own", ZH: "不是自己的锁"}
	default:
		return Text{EN: "release failed", ZH: "释放失败"}
	}
}

func shortWrite(r writeResult) Text {
	switch {
	case r.relative && r.rejected:
		return Text{EN: "−1 ✗", ZH: "减 1 被拒"}
	case r.relative:
		return Text{EN: fmt.Sprintf("−1 → %d", r.value), ZH: fmt.Sprintf("减 1 → %d", r.value)}
	}
	if r.rejected {
		return Text{EN: fmt.Sprintf("write %d ✗", r.value), ZH: fmt.Sprintf("写 %d 被拒", r.value)}
	}
	return Text{EN: fmt.Sprintf("write %d", r.value), ZH: fmt.Sprintf("写 %d", r.value)}
}

// --- commands and replies, redis-cli style ------------------------------

// cmdArgs are a command's arguments as a trace keeps them (keptArgs).
func cmdArgs(cmd redis.Cmder) []string {
	if b, ok := batchOf(cmd); ok {
		return keptArgs(b.args())
	}
	return keptArgs(cmd.Args())
}

// formatCommand renders a command as redis-cli would take it. A Lua script
// body shows as the name on its first comment line (EVAL <release> 1 key
// A#1), or, for a script without one (a library's), as "script" and the
// first 8 hex digits of its SHA-1 — the name its EVALSHA shows too (of
// the whole body, which the arguments a trace keeps may have cut).
func formatCommand(cmd redis.Cmder) string {
	if b, ok := batchOf(cmd); ok {
		return b.format()
	}
	args := cmdArgs(cmd)
	parts := make([]string, len(args))
	script := len(args) > 1 && (strings.EqualFold(args[0], "eval") || strings.EqualFold(args[0], "evalsha") ||
		strings.EqualFold(args[0], "eval_ro") || strings.EqualFold(args[0], "evalsha_ro"))
	for i, a := range args {
		switch {
		case i == 0 || keywords[a]:
			parts[i] = strings.ToUpper(a)
		case i == 1 && script:
			parts[i] = "<" + scriptName(args[0], rawArg(cmd.Args()[1])) + ">"
		case a == "" || strings.ContainsAny(a, " \"\n"):
			parts[i] = strconv.Quote(a)
		default:
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// scriptName names the script argument of an EVAL (its body) or an EVALSHA
// (its SHA-1): the first comment line up to a colon, else "script" and a
// short hash.
func scriptName(cmd, arg string) string {
	if strings.HasPrefix(strings.ToLower(cmd), "evalsha") {
		return "script " + arg[:min(8, len(arg))]
	}
	first, _, _ := strings.Cut(strings.TrimLeft(arg, " \t\r\n"), "\n")
	if c, ok := strings.CutPrefix(first, "--"); ok && strings.TrimSpace(c) != "" {
		name, _, _ := strings.Cut(strings.TrimSpace(c), ":")
		return CleanText(name)
	}
	return fmt.Sprintf("script %x", sha1.Sum([]byte(arg)))[:len("script ")+8]
}

// keywords are the command options go-redis sends in lower case.
var keywords = map[string]bool{"nx": true, "xx": true, "ex": true, "px": true, "keepttl": true}

// formatReply renders a reply as redis-cli prints it.
func formatReply(cmd redis.Cmder, err error) string {
	if b, ok := batchOf(cmd); ok {
		return b.reply(err)
	}
	return replyOf(cmd, err)
}

// replyOf is formatReply for one command, never a batch's: at most MaxArg
// bytes of any value in it (Cut).
func replyOf(cmd redis.Cmder, err error) string {
	if errors.Is(err, redis.Nil) {
		return "(nil)"
	}
	if err != nil {
		return Cut("(error) "+err.Error(), MaxArg)
	}
	name := strings.ToLower(cmd.Name())
	switch c := cmd.(type) {
	case *redis.StatusCmd:
		return Cut(c.Val(), MaxArg)
	case *redis.IntCmd:
		return "(integer) " + strconv.FormatInt(c.Val(), 10)
	case *redis.StringCmd:
		return strconv.Quote(Cut(c.Val(), MaxArg))
	case *redis.BoolCmd:
		if name == "set" {
			if c.Val() {
				return "OK"
			}
			return "(nil)"
		}
		return "(integer) " + boolInt(c.Val())
	case *redis.Cmd:
		switch v := c.Val().(type) {
		case nil:
			return "(nil)"
		case int64:
			return "(integer) " + strconv.FormatInt(v, 10)
		case string:
			if v == "OK" {
				return v
			}
			return strconv.Quote(Cut(v, MaxArg))
		default:
			return Cut(fmt.Sprint(v), MaxArg)
		}
	}
	return Cut(fmt.Sprint(cmd), MaxArg)
}

// stringReply is a command's reply when it is a bulk string.
func stringReply(cmd redis.Cmder) (string, bool) {
	switch c := cmd.(type) {
	case *redis.StringCmd:
		return c.Val(), c.Err() == nil
	case *redis.Cmd:
		v, ok := c.Val().(string)
		return v, ok && c.Err() == nil
	}
	return "", false
}

func boolInt(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
