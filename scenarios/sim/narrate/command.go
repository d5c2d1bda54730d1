package narrate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// This file narrates a command that reached its server, in English and
// Chinese: whose it was and what for, how it failed, and what it changed on
// the server's keys.

func ttlText(k trace.KeyState) (string, string) {
	if k.TTL < 0 {
		return "no TTL", "没有过期时间"
	}
	return "TTL " + Secs(k.TTL), "TTL " + SecsZH(k.TTL)
}

// Command is the narration of actor's command in stage op: what it was
// for, how it failed (err), and what it changed on the server's keys.
func Command(actor string, op trace.Op, changes []Change, err error) text.Text {
	en, zh := commandOf(actor, op)
	return commandText(en, zh, changes, err)
}

// CommandLate is Command for a command that reaches its server
// after its client stopped waiting for it (an orphan): client gave up at
// gaveUp, and nobody reads the reply.
func CommandLate(actor string, op trace.Op, changes []Change, err error, client string, gaveUp time.Duration) text.Text {
	en, zh := commandOf(actor, op)
	en += fmt.Sprintf(" (%s stopped waiting for it at t=%s; it arrives only now, and nobody reads the reply)", client, Secs(gaveUp))
	zh += fmt.Sprintf("（%s 在第 %s已不再等它；命令现在才到达，应答没有人读）", client, SecsZH(gaveUp))
	return commandText(en, zh, changes, err)
}

// OpUndo is not a stage of a trace but how the narration names a command
// that an acquire sends to take back what a failed attempt wrote — a
// Redlock's release on every node after too few said OK: a release, not
// an acquire (issue #41 item 9).
const OpUndo trace.Op = "undo"

// commandOf names what a command of actor is for: "A/redis-3's acquire",
// "A 在 redis-3 上加锁".
func commandOf(actor string, op trace.Op) (en, zh string) {
	who, node := actorZH(actor)
	if node != "" {
		who += " 在 " + node + " 上"
	}
	switch op {
	case trace.OpAcquire:
		en, zh = actor+"'s acquire", zhCat(who, "加锁")
	case OpUndo:
		en, zh = actor+"'s release after the failed attempt", zhCat(who, "撤回没成功的加锁，释放锁")
	case trace.OpRelease:
		en, zh = actor+"'s release", zhCat(who, "释放锁")
	case trace.OpRenew:
		en, zh = actor+"'s renewal", zhCat(who, "续期")
	case trace.OpCheck:
		en, zh = actor+"'s check before its write", zhCat(who, "写入前检查锁")
	case trace.OpReenter:
		en, zh = actor+"'s nested acquire", zhCat(who, "嵌套加锁")
	case trace.OpLeave:
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
func commandText(en, zh string, changes []Change, err error) text.Text {
	var ens, zhs []string
	var late *command.GaveUpError
	var unsent *command.NotSentError
	if errors.As(err, &late) {
		ens = append(ens, gaveUpEN(late))
		zhs = append(zhs, gaveUpZH(late))
	} else if errors.As(err, &unsent) {
		ens = append(ens, fmt.Sprintf("its timeout passed before %s sent it (%s): the command is never sent", unsent.Client, unsent.Err))
		zhs = append(zhs, fmt.Sprintf("%s 还没发出它，超时时间就已经过了（客户端报错：`%s`）：这条命令不会再发出", unsent.Client, unsent.Err))
	} else if redis.HasErrorPrefix(err, "NOSCRIPT") {
		// EVALSHA first, and on NOSCRIPT the whole script with EVAL: two
		// commands, one script call, sent by the code the gate found
		// (command.WithFallback).
		by := command.ScriptFallback(err)
		if command.ScriptFallbackOwn(err) {
			ens = append(ens, "the server does not have the script cached yet (NOSCRIPT); "+by.EN+" falls back its own way next: it loads the script (SCRIPT LOAD) and calls it again, or sends it whole (EVAL)")
			zhs = append(zhs, "服务器上还没有缓存这段脚本（NOSCRIPT）；"+zhCat(by.ZH, "接下来按自己的方式补救：先加载脚本（SCRIPT LOAD）再调用一次，或者把整段脚本发过去（EVAL）"))
		} else {
			ens = append(ens, "the server does not have the script cached yet (NOSCRIPT); "+by.EN+" sends it whole next (EVAL): one script call, two commands")
			zhs = append(zhs, "服务器上还没有缓存这段脚本（NOSCRIPT）；"+zhCat(by.ZH, "接着把整段脚本发过去（EVAL）：一次脚本调用，两条命令"))
		}
	} else if errors.Is(err, redis.TxFailedErr) {
		ens = append(ens, "the transaction does nothing: a key it watches changed after its WATCH, so EXEC answers nil")
		zhs = append(zhs, "事务没有执行：它 WATCH 的键在 WATCH 之后被改过，EXEC 返回 nil")
	} else if !command.IsReply(err) {
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
	return text.Text{EN: en + ": " + strings.Join(ens, "; "), ZH: zh + "：" + strings.Join(zhs, "；")}
}

func describeChange(ch Change) (string, string) {
	a, b := ch.After, ch.Before
	switch ch.Kind {
	case ChangeCreated:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s = %s is written (%s)", a.Key, a.Value, te),
			fmt.Sprintf("写入 %s = %s（%s）", a.Key, a.Value, tz)
	case ChangeDeleted:
		return fmt.Sprintf("%s is deleted (it held %s, written by %s)", b.Key, b.Value, b.Writer),
			fmt.Sprintf("删除了 %s（原值 %s，由 %s 写入）", b.Key, b.Value, b.Writer)
	case ChangeValue:
		return fmt.Sprintf("%s is now %s", a.Key, a.Value),
			fmt.Sprintf("%s 变为 %s", a.Key, a.Value)
	case ChangeExtended:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s is extended (%s)", a.Key, te),
			fmt.Sprintf("%s 被续期（%s）", a.Key, tz)
	default:
		te, tz := ttlText(a)
		return fmt.Sprintf("%s now has %s", a.Key, te),
			fmt.Sprintf("%s 设置了 %s", a.Key, tz)
	}
}
