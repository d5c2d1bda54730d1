package narrate

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/text"
)

// This file narrates a failover that Redis Sentinel decides on real
// servers: what the Sentinels say, and the primary's death they wait on.

// Sentinel is what a Sentinel's message of kind ("+sdown", …) says in
// the trace, for the messages that tell the failover's story; ok false for
// the rest. sentinel is the Sentinel that said it, instance what it is
// about ("master"), promoted the server it promoted (+switch-master), and
// since how long ago the primary died.
func Sentinel(kind, sentinel, instance, promoted string, since time.Duration) (text.Text, bool) {
	after := Secs(since)
	switch kind {
	case "+sdown":
		if instance != "master" {
			return text.Text{}, false
		}
		return text.Text{
			EN: fmt.Sprintf("Sentinel %s finds the primary unreachable for its down-after: subjectively down (+sdown), %s after it died", sentinel, after),
			ZH: fmt.Sprintf("哨兵 %s 发现主库连续 down-after 这么久无法访问：主观下线（+sdown），距宕机 %s", sentinel, SecsZH(since)),
		}, true
	case "+odown":
		return text.Text{
			EN: fmt.Sprintf("Sentinel %s has heard from enough Sentinels (the quorum): the primary is objectively down (+odown), %s after it died", sentinel, after),
			ZH: fmt.Sprintf("哨兵 %s 收到了足够多（达到法定人数）哨兵的确认：主库客观下线（+odown），距宕机 %s", sentinel, SecsZH(since)),
		}, true
	case "+elected-leader":
		return text.Text{
			EN: fmt.Sprintf("the Sentinels elect %s to lead the failover (+elected-leader)", sentinel),
			ZH: fmt.Sprintf("哨兵们选出 %s 作为领头的哨兵来执行主从切换（+elected-leader）", sentinel),
		}, true
	case "+switch-master":
		n := promoted
		return text.Text{
			EN: fmt.Sprintf("Sentinel has promoted %s to primary, with the writes it had received (+switch-master), %s after the primary died; a client's next command reaches %s", n, after, n),
			ZH: fmt.Sprintf("哨兵已把 %s 提升为主库（+switch-master），它只带着已经收到的写入，距宕机 %s；客户端的下一条命令就会发到 %s", n, SecsZH(since), n),
		}, true
	}
	return text.Text{}, false
}

// PrimaryDiedSentinel says the primary dies, and real Sentinels will
// decide. What the relay still held counts in chunks of the stream, which
// carries the Sentinels' hellos (a PUBLISH every 2 s) as well as the
// locks' writes.
func PrimaryDiedSentinel(dead string, lost int, downAfter time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s (primary) dies before its replica has received all of its writes (%d chunk(s) of the replication stream, the Sentinels' hellos among them, never arrive); the Sentinels can no longer reach it, and will fail it over once it has been unreachable for down-after (%s): until then nothing answers for %s, and a client's command there fails", dead, lost, Secs(downAfter), dead),
		ZH: fmt.Sprintf("%s（主库）宕机，它的写入还没有全部传到从库（复制流里还有 %d 段没送到，其中也有哨兵的问候消息）；哨兵们再也连不上它，要等它连续 %s无法访问才会发起主从切换：在那之前没有谁替 %s 应答，客户端发往它的命令都会失败", dead, lost, SecsZH(downAfter), dead),
	}
}
