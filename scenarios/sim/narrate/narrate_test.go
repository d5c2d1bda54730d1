package narrate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// Chinese narration names actors in Chinese and says errors in Chinese
// (issue #14): the simulator's own errors in Chinese only, a client's raw
// error quoted as its words after a Chinese sentence (issue #29).
func TestNarrationChinese(t *testing.T) {
	for _, tc := range []struct {
		got  text.Text
		want string
	}{
		{Command("A.watchdog", trace.OpRenew, nil, nil), "A 的看门狗续期：没有任何改变"},
		{Command("A/redis-3", trace.OpAcquire, nil, nil), "A 在 redis-3 上加锁：没有任何改变"},
		{Command("A/redis-2#2", trace.OpAcquire, nil, &command.NotSentError{Client: "A", Err: context.DeadlineExceeded}),
			"A 在 redis-2 上加锁：A 还没发出它，超时时间就已经过了（客户端报错：`context deadline exceeded`）：这条命令不会再发出"},
		{Command("A", trace.OpRelease, nil, &command.NodeDownError{Server: "redis-1", Lost: true}),
			"A 释放锁：命令失败：redis-1 已宕机，连接中断"},
		{Command("B/redis-4", trace.OpAcquire, nil, &command.PartitionError{Client: "B", Server: "redis-4"}),
			"B 在 redis-4 上加锁：命令失败：网络分区，B 连不上 redis-4，超时"},
		{Command("A/redis-3", trace.OpAcquire, nil, &command.PartitionError{Client: "A", Server: "redis-3", ReplyLost: true}),
			"A 在 redis-3 上加锁：命令失败：命令在 redis-3 上执行了，应答却因网络分区丢失，A 只看到超时"},
		{Held("A.watchdog", "", trace.OpRenew), "调度器让 A 的看门狗停在这里"},
		{Unheld("A/redis-2"), "调度器让 A 发往 redis-2 的命令继续执行"},
		{Released("A", errors.New("i/o timeout"), true), "A 释放锁失败：超时（客户端报错：`i/o timeout`）"},
		{ClockJump("redis-3", 40e9), "redis-3 的系统时钟拨快了 40 秒（NTP 校时、手动改时间）：它上面的 key 提前 40 秒过期"},
	} {
		if tc.got.ZH != tc.want {
			t.Errorf("got %q, want %q", tc.got.ZH, tc.want)
		}
	}
	if zh := Write("A", "stock", WriteResult{Rejected: true, Fence: 1, MaxFence: 2}).ZH; !strings.HasPrefix(zh, "资源端拒绝了") {
		t.Errorf("the resource refuses a write: %q", zh)
	}
	if l := Lost("A", "", false); !strings.Contains(l.EN, "ignores the signal") || !strings.Contains(l.ZH, "不理会这个信号") {
		t.Errorf("the lost signal's text must say the program ignores it: %q / %q", l.EN, l.ZH)
	}
	// A program that checks before it writes does not ignore the signal.
	if l := Lost("A", "", true); strings.Contains(l.EN, "ignores") || !strings.Contains(l.ZH, "写入之前会先看这个信号") {
		t.Errorf("the lost signal's text for a program that checks: %q / %q", l.EN, l.ZH)
	}
}

// What the lock made of the count is said when it disagrees with the count.
func TestQuorumTexts(t *testing.T) {
	for _, tc := range []struct {
		ok, nodes int
		acquired  bool
		want      text.Text
	}{
		{3, 5, false, text.Text{EN: "A: 3 of 5 nodes said OK — a majority (3 needed), yet the attempt fails",
			ZH: "A：5 个节点中 3 个返回 OK——达到多数派（需要 3 个），但这次加锁仍然失败"}},
		{2, 5, true, text.Text{EN: "A: 2 of 5 nodes said OK — not a majority (3 needed), yet the lock reports success",
			ZH: "A：5 个节点中 2 个返回 OK——未达到多数派（需要 3 个），锁却报告加锁成功"}},
		{2, 4, false, text.Text{EN: "A: 2 of 4 nodes said OK — not a majority (3 needed)",
			ZH: "A：4 个节点中 2 个返回 OK——未达到多数派（需要 3 个）"}},
	} {
		if got := Quorum("A", tc.ok, tc.nodes, nil, tc.acquired); got != tc.want {
			t.Errorf("Quorum(%d, %d, %v) = %q / %q, want %q / %q", tc.ok, tc.nodes, tc.acquired, got.EN, got.ZH, tc.want.EN, tc.want.ZH)
		}
	}
}

// EVALSHA's NOSCRIPT is the first half of one script call, not a failure.
func TestNoScriptIsOneScriptCall(t *testing.T) {
	text := Command("A", trace.OpRelease, nil, redis.ErrNoScript)
	if !strings.Contains(text.EN, "one script call, two commands") || strings.Contains(text.EN, "fails") {
		t.Errorf("NOSCRIPT narrated as %q", text.EN)
	}
}
