package sim

import (
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is a real run's failover by Redis Sentinel (Target.Sentinels):
// the Sentinels watch the first server, and when the timeline kills it they
// decide the failover themselves, in real time. The engine tells them
// nothing but that the primary is gone (SentinelWatch.Down), shows what they
// say (+sdown, +odown, +switch-master) as events, and routes the first node
// to the replica once they have promoted it, as a Sentinel-aware client
// does. Lessons without a replica, and Redlock, do not involve them.

// sentinelPoll is how often, in virtual time, a world waiting for the
// Sentinels' failover looks at what they said.
const sentinelPoll = 100 * time.Millisecond

// startSentinels has the target's Sentinels watch the run's primary, once
// its replica is in sync.
func (w *World) startSentinels() error {
	t := w.real.Target
	if t.Sentinels == nil || w.route == nil || w.servers[w.route[0]].replica < 0 {
		return nil
	}
	p, r := w.servers[w.route[0]], w.servers[w.servers[w.route[0]].replica]
	if _, ok := r.b.(backend.Cutter); !ok {
		return fmt.Errorf("%s cannot be failed over by Sentinel: its backend cannot cut the stream", r.b.Addr())
	}
	name := backend.SentinelName(t.Prefix)
	// The failover timeout outlasts the run: a replica behind the relay
	// is pointed at the monitored address by Sentinel once it has passed
	// (+fix-slave-config), which would bypass the lag.
	timeout := w.real.ToReal(w.setup.Horizon) + time.Minute
	watch, err := t.Sentinels(w.real, name, p.b.ClientOptions(), r.b.ClientOptions(), w.real.ToReal(w.setup.DownAfter), timeout)
	if err != nil {
		return fmt.Errorf("Sentinel: %w", err)
	}
	w.sentinel, w.sentinelSaid = watch, map[string]bool{}
	return nil
}

// sentinelDown is the failover on a run whose Sentinels decide it: the
// stream to the replica is cut (its unsent writes are lost), the primary
// goes out of the Sentinels' reach, and the world waits for their word.
func (w *World) sentinelDown(dead *server) int {
	lost := w.servers[dead.replica].b.(backend.Cutter).Cut()
	w.repl = nil
	w.sentinel.Down()
	return lost
}

// drainSentinels shows what the Sentinels said since the last look, the
// first of each kind, and routes the first node to the replica when they
// have promoted it.
func (w *World) drainSentinels() {
	if w.sentinel == nil {
		return
	}
	for _, e := range w.sentinel.Events() {
		if w.sentinelSaid[e.Kind] {
			continue
		}
		text, ok := textSentinel(e, w.servers, w.now-w.diedAt)
		if !ok {
			continue
		}
		w.sentinelSaid[e.Kind] = true
		w.emit(trace.Event{Kind: trace.KindFault, Server: w.servers[w.route[0]].name, Text: text, Short: same(e.Kind)})
		if e.Kind == "+switch-master" && w.promoting {
			w.sentinelPromote(e)
		}
	}
}

// sentinelPromote routes the first node to the replica the Sentinels
// promoted; a promotion of anything else fails the run.
func (w *World) sentinelPromote(e backend.SentinelEvent) {
	dead := w.servers[w.route[0]]
	r := w.servers[dead.replica]
	if o := r.b.ClientOptions(); o == nil || o.Addr != e.Addr {
		w.fail(fmt.Errorf("Sentinel promoted %s, not the replica %s", e.Addr, r.b.Addr()))
		return
	}
	w.promoting = false
	r.role, r.primary, r.lag = "primary", -1, 0
	w.route[0] = dead.replica
}

// textSentinel is what a Sentinel's message says in the trace, for the
// messages that tell the failover's story; ok false for the rest.
func textSentinel(e backend.SentinelEvent, servers []*server, since time.Duration) (text.Text, bool) {
	name := func(addr string) string {
		for _, s := range servers {
			if o := s.b.ClientOptions(); o != nil && o.Addr == addr {
				return s.name
			}
		}
		return addr
	}
	after := Secs(since)
	switch e.Kind {
	case "+sdown":
		if e.Instance != "master" {
			return text.Text{}, false
		}
		return text.Text{
			EN: fmt.Sprintf("Sentinel %s finds the primary unreachable for its down-after: subjectively down (+sdown), %s after it died", e.Sentinel, after),
			ZH: fmt.Sprintf("哨兵 %s 发现主库连续 down-after 这么久无法访问：主观下线（+sdown），距宕机 %s", e.Sentinel, secsZH(since)),
		}, true
	case "+odown":
		return text.Text{
			EN: fmt.Sprintf("Sentinel %s has heard from enough Sentinels (the quorum): the primary is objectively down (+odown), %s after it died", e.Sentinel, after),
			ZH: fmt.Sprintf("哨兵 %s 收到了足够多（达到法定人数）哨兵的确认：主库客观下线（+odown），距宕机 %s", e.Sentinel, secsZH(since)),
		}, true
	case "+elected-leader":
		return text.Text{
			EN: fmt.Sprintf("the Sentinels elect %s to lead the failover (+elected-leader)", e.Sentinel),
			ZH: fmt.Sprintf("哨兵们选出 %s 作为领头的哨兵来执行主从切换（+elected-leader）", e.Sentinel),
		}, true
	case "+switch-master":
		n := name(e.Addr)
		return text.Text{
			EN: fmt.Sprintf("Sentinel has promoted %s to primary, with the writes it had received (+switch-master), %s after the primary died; a client's next command reaches %s", n, after, n),
			ZH: fmt.Sprintf("哨兵已把 %s 提升为主库（+switch-master），它只带着已经收到的写入，距宕机 %s；客户端的下一条命令就会发到 %s", n, secsZH(since), n),
		}, true
	}
	return text.Text{}, false
}

// textPrimaryDiedSentinel: the primary dies, and real Sentinels will
// decide. What the relay still held counts in chunks of the stream, which
// carries the Sentinels' hellos (a PUBLISH every 2 s) as well as the
// locks' writes.
func textPrimaryDiedSentinel(dead string, lost int, downAfter time.Duration) text.Text {
	return text.Text{
		EN: fmt.Sprintf("%s (primary) dies before its replica has received all of its writes (%d chunk(s) of the replication stream, the Sentinels' hellos among them, never arrive); the Sentinels can no longer reach it, and will fail it over once it has been unreachable for down-after (%s): until then nothing answers for %s, and a client's command there fails", dead, lost, Secs(downAfter), dead),
		ZH: fmt.Sprintf("%s（主库）宕机，它的写入还没有全部传到从库（复制流里还有 %d 段没送到，其中也有哨兵的问候消息）；哨兵们再也连不上它，要等它连续 %s 无法访问才会发起主从切换：在那之前没有谁替 %s 应答，客户端发往它的命令都会失败", dead, lost, secsZH(downAfter), dead),
	}
}
