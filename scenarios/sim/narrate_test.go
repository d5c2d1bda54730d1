package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// Chinese narration names actors in Chinese and says errors in Chinese
// (issue #14): the simulator's own errors in Chinese only, a client's raw
// error quoted as its words after a Chinese sentence (issue #29).
func TestNarrationChinese(t *testing.T) {
	for _, tc := range []struct {
		got  text.Text
		want string
	}{
		{textCommand("A.watchdog", trace.OpRenew, nil, nil), "A 的看门狗续期：没有任何改变"},
		{textCommand("A/redis-3", trace.OpAcquire, nil, nil), "A 在 redis-3 上加锁：没有任何改变"},
		{textCommand("A/redis-2#2", trace.OpAcquire, nil, &command.NotSentError{Client: "A", Err: context.DeadlineExceeded}),
			"A 在 redis-2 上加锁：A 还没发出它，超时时间就已经过了（客户端报错：`context deadline exceeded`）：这条命令不会再发出"},
		{textCommand("A", trace.OpRelease, nil, &command.NodeDownError{Server: "redis-1", Lost: true}),
			"A 释放锁：命令失败：redis-1 已宕机，连接中断"},
		{textCommand("B/redis-4", trace.OpAcquire, nil, &command.PartitionError{Client: "B", Server: "redis-4"}),
			"B 在 redis-4 上加锁：命令失败：网络分区，B 连不上 redis-4，超时"},
		{textCommand("A/redis-3", trace.OpAcquire, nil, &command.PartitionError{Client: "A", Server: "redis-3", ReplyLost: true}),
			"A 在 redis-3 上加锁：命令失败：命令在 redis-3 上执行了，应答却因网络分区丢失，A 只看到超时"},
		{textHeld("A.watchdog", "", trace.OpRenew), "调度器让 A 的看门狗停在这里"},
		{textUnheld("A/redis-2"), "调度器让 A 发往 redis-2 的命令继续执行"},
		{textReleased("A", errors.New("i/o timeout"), true), "A 释放锁失败：超时（客户端报错：`i/o timeout`）"},
		{textClockJump("redis-3", 40e9), "redis-3 的系统时钟拨快了 40 秒（NTP 校时、手动改时间）：它上面的 key 提前 40 秒过期"},
	} {
		if tc.got.ZH != tc.want {
			t.Errorf("got %q, want %q", tc.got.ZH, tc.want)
		}
	}
	if zh := textLostUpdate("A", writeResult{}).ZH; strings.Contains(zh, "过期") || !strings.Contains(zh, "陈旧的读数") {
		t.Errorf("a stale read is 陈旧的读数, not 过期: %q", zh)
	}
	if zh := textLiveness([]string{"B"}, 60e9, nil, nil, true).ZH; !strings.Contains(zh, "锁无人释放") {
		t.Errorf("an orphaned lock is 锁无人释放: %q", zh)
	}
	// Two waiters of a lock that is on no server (every acquire refused,
	// cluster-slots × fenced-no-tag): not an orphaned lock, and "have".
	if l := textLiveness([]string{"A", "B"}, 60e9, nil, nil, false); l.EN != "A and B have waited 60s for a lock nobody holds: every attempt fails" ||
		strings.Contains(l.ZH, "锁无人释放") {
		t.Errorf("two waiters of a free lock that nobody can take: %q / %q", l.EN, l.ZH)
	}
	// A waits for the lock it holds itself, B behind it: "A and B has
	// waited … for a lock it holds itself", before.
	if l := textLiveness([]string{"A", "B"}, 10e9, []string{"A"}, nil, true); l.EN != "A has waited 10s for a lock it holds itself: it has deadlocked on itself, and B waits behind it" ||
		l.ZH != "A 已等待 10 秒，等的是自己持有的锁：自己把自己锁死了；B 也在后面等着" {
		t.Errorf("a self-deadlock with a waiter behind it: %q / %q", l.EN, l.ZH)
	}
	if zh := textWrite("A", "stock", writeResult{rejected: true, fence: 1, maxFence: 2}).ZH; !strings.HasPrefix(zh, "资源端拒绝了") {
		t.Errorf("the resource refuses a write: %q", zh)
	}
	if l := textLost("A"); !strings.Contains(l.EN, "ignores the signal") || !strings.Contains(l.ZH, "不理会这个信号") {
		t.Errorf("the lost signal's text must say the program ignores it: %q / %q", l.EN, l.ZH)
	}
}
