package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// This file is a real run's failover by Redis Sentinel (Target.Sentinels):
// the Sentinels watch the first server, and when the timeline kills it they
// decide the failover themselves, in real time. The engine tells them
// nothing but that the primary is gone (SentinelWatch.Down), shows what they
// say (+sdown, +odown, +switch-master) as events, and routes the first node
// to the replica once they have promoted it, as a Sentinel-aware client
// does. Lessons without a replica, and Redlock, do not involve them.

// SentinelWatch is one run's master on a Sentinel group.
type SentinelWatch interface {
	// Down makes the primary unreachable to the Sentinels, from now on.
	Down()
	// Events are what the Sentinels have said about the run's master
	// since the last call, in the order they came.
	Events() []SentinelEvent
	// Close stops watching and has every Sentinel forget the run's
	// master; the engine calls it before it cleans up the servers.
	Close() error
}

// SentinelEvent is one message a Sentinel published about the run's
// master: Kind is its channel ("+sdown", "+odown", "+switch-master", …),
// Sentinel the address of the Sentinel that said it, Addr the instance it
// is about (for +switch-master, the new master), At when it came.
type SentinelEvent struct {
	Kind, Sentinel, Instance, Addr string
	At                             time.Time
}

// WatchSentinels starts a run's watch: the Sentinels monitor primary, whose
// replica is replica, under name, with down-after and the failover timeout
// given (both real time), and know the replica and each other when it
// returns.
type WatchSentinels func(run *RealRun, name string, primary, replica *redis.Options, downAfter, timeout time.Duration) (SentinelWatch, error)

// Cutter is a Follower whose stream can be cut without promoting it: the
// Sentinels promote it themselves.
type Cutter interface {
	Follower
	// Cut ends the replication stream from a primary that died; what was
	// still on its way (chunks) never arrives.
	Cut() (lost int)
}

// sentinelPoll is how often, in virtual time, a world waiting for the
// Sentinels' failover looks at what they said.
const sentinelPoll = 100 * time.Millisecond

// SentinelName is the master name on the Sentinels of a run whose keys are
// under prefix: "lockstep-" and the prefix with dashes for its colons
// ("lockstep-lockstep-3f9a1c2e-failover-uuid-lua"), a name of the run's
// own that lockstep clean can tell from the user's.
func SentinelName(prefix string) string {
	return "lockstep-" + strings.NewReplacer(":", "-", "{", "", "}", "").Replace(strings.TrimSuffix(prefix, ":"))
}

// startSentinels has the target's Sentinels watch the run's primary, once
// its replica is in sync.
func (f *fleet) startSentinels() error {
	t := f.w.real.Target
	if t.Sentinels == nil || f.route == nil || f.servers[f.route[0]].replica < 0 {
		return nil
	}
	p, r := f.servers[f.route[0]], f.servers[f.servers[f.route[0]].replica]
	if _, ok := r.b.(Cutter); !ok {
		return fmt.Errorf("%s cannot be failed over by Sentinel: its backend cannot cut the stream", r.b.Addr())
	}
	name := SentinelName(t.Prefix)
	// The failover timeout outlasts the run: a replica behind the relay
	// is pointed at the monitored address by Sentinel once it has passed
	// (+fix-slave-config), which would bypass the lag.
	timeout := f.w.real.ToReal(f.w.setup.Horizon) + time.Minute
	watch, err := t.Sentinels(f.w.real, name, p.b.ClientOptions(), r.b.ClientOptions(), f.w.real.ToReal(f.w.setup.DownAfter), timeout)
	if err != nil {
		return fmt.Errorf("Sentinel: %f.w", err)
	}
	f.sentinel, f.sentinelSaid = watch, map[string]bool{}
	return nil
}

// sentinelDown is the failover on a run whose Sentinels decide it: the
// stream to the replica is cut (its unsent writes are lost), the primary
// goes out of the Sentinels' reach, and the world waits for their word.
func (f *fleet) sentinelDown(dead *server) int {
	lost := f.servers[dead.replica].b.(Cutter).Cut()
	f.repl = nil
	f.sentinel.Down()
	return lost
}

// drainSentinels shows what the Sentinels said since the last look, the
// first of each kind, and routes the first node to the replica when they
// have promoted it.
func (f *fleet) drainSentinels() {
	if f.sentinel == nil {
		return
	}
	for _, e := range f.sentinel.Events() {
		if f.sentinelSaid[e.Kind] {
			continue
		}
		text, ok := textSentinel(e, f.servers, f.w.now-f.diedAt)
		if !ok {
			continue
		}
		f.sentinelSaid[e.Kind] = true
		f.w.emit(trace.Event{Kind: trace.KindFault, Server: f.servers[f.route[0]].name, Text: text, Short: same(e.Kind)})
		if e.Kind == "+switch-master" && f.promoting {
			f.sentinelPromote(e)
		}
	}
}

// sentinelPromote routes the first node to the replica the Sentinels
// promoted; a promotion of anything else fails the run.
func (f *fleet) sentinelPromote(e SentinelEvent) {
	dead := f.servers[f.route[0]]
	r := f.servers[dead.replica]
	if o := r.b.ClientOptions(); o == nil || o.Addr != e.Addr {
		f.w.fail(fmt.Errorf("Sentinel promoted %s, not the replica %s", e.Addr, r.b.Addr()))
		return
	}
	f.promoting = false
	r.role, r.primary, r.lag = "primary", -1, 0
	f.route[0] = dead.replica
}

// textSentinel is what a Sentinel's message says in the trace, for the
// messages that tell the failover's story; ok false for the rest.
func textSentinel(e SentinelEvent, servers []*server, since time.Duration) (text.Text, bool) {
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
