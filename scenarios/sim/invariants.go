package sim

import (
	"time"
)

// The invariant ids.
const (
	InvMutex     = "mutex"
	InvOwnership = "ownership"
	InvLiveness  = "liveness"
	InvResource  = "resource"
)

// Invariant describes one property every run is judged on.
type Invariant struct {
	ID   string
	Rule Text
}

// Invariants are judged from observations only: beliefs, server contents,
// what the resource accepted.
var Invariants = []Invariant{
	{InvMutex, Text{
		EN: "at no instant do two live clients believe they hold the lock (a paused client still believes)",
		ZH: "任何时刻都不会有两个存活的客户端同时认为自己持有锁（暂停中的客户端仍然认为自己持有）"}},
	{InvOwnership, Text{
		EN: "no release or renewal removes or extends a lock value the client did not write",
		ZH: "释放或续期不会删除或延长不是自己写入的锁"}},
	{InvLiveness, Text{
		EN: "once the holder is dead, done or hung, a waiting client gets the lock within a bounded time (no orphaned lock, no self-deadlock, no endless renewal)",
		ZH: "持有者崩溃、结束或卡死后，等待的客户端能在有限时间内拿到锁（没有无人释放的锁、没有自己锁死自己、没有无限续期）"}},
	{InvResource, Text{
		EN: "the protected data never loses an update (no oversell, no stale write accepted)",
		ZH: "受保护的数据不丢失更新（不超卖，不接受基于陈旧读数的写入）"}},
}

// InvariantName is an invariant's name in both languages: its id in
// English, "互斥" and so on in Chinese.
func InvariantName(id string) Text {
	zh := map[string]string{InvMutex: "互斥", InvOwnership: "归属", InvLiveness: "活性", InvResource: "资源"}[id]
	if zh == "" {
		zh = id
	}
	return Text{EN: id, ZH: zh}
}

// InvariantIDs lists the invariant ids in order.
func InvariantIDs() []string {
	ids := make([]string, len(Invariants))
	for i, inv := range Invariants {
		ids[i] = inv.ID
	}
	return ids
}

// judge keeps the verdicts and the state the invariants need over time.
type judge struct {
	verdicts []Verdict
	pairs    map[string]bool // holder pairs already reported
	orphan   bool
	since    time.Duration
}

func newJudge() judge {
	j := judge{pairs: map[string]bool{}}
	for _, inv := range Invariants {
		j.verdicts = append(j.verdicts, Verdict{Invariant: inv.ID})
	}
	return j
}

func (j *judge) broke(id string, step int, t time.Duration, reason Text) {
	for i := range j.verdicts {
		if j.verdicts[i].Invariant == id && !j.verdicts[i].Broken {
			j.verdicts[i] = Verdict{Invariant: id, Broken: true, Step: step, T: t, Reason: reason}
		}
	}
}

func (j *judge) isBroken(id string) bool {
	for _, v := range j.verdicts {
		if v.Invariant == id {
			return v.Broken
		}
	}
	return false
}

// checkMutex reports every new pair of live clients that both believe they
// hold the lock (the same lock: clients with keys of their own hold locks
// apart).
func (w *World) checkMutex() {
	for _, holders := range w.byKey(func(c *client) bool { return c.belief == BeliefHolds && !c.crashed }) {
		w.checkHolders(holders)
	}
}

// checkHolders reports holders, the live clients that believe they hold one
// lock, if two of them are a pair not reported yet.
func (w *World) checkHolders(holders []string) {
	fresh := false
	for i := range holders {
		for k := i + 1; k < len(holders); k++ {
			pair := holders[i] + "+" + holders[k]
			if !w.judge.pairs[pair] {
				w.judge.pairs[pair] = true
				fresh = true
			}
		}
	}
	if fresh {
		w.violate(InvMutex, textMutex(holders))
	}
}

// updateLiveness tracks whether some client waits while no live client holds
// the lock: from that moment the liveness bound runs. A holder whose business
// goroutine hangs, or waits for the lock it holds itself, is not live: it
// will not give the lock back.
func (j *judge) updateLiveness(w *World) {
	// Per lock: clients with keys of their own wait for their own.
	waiting, live := map[string]bool{}, map[string]bool{}
	for _, c := range w.clients {
		if c.crashed {
			continue
		}
		switch {
		case (c.belief == BeliefWaiting || c.reentering) && !c.paused:
			// A paused waiter is not kept out by the lock: it is not
			// trying.
			waiting[c.key] = true
		case (c.belief == BeliefHolds || c.op == OpRelease) && !c.hung:
			// A client still releasing is at work on the lock too.
			live[c.key] = true
		}
	}
	orphan := false
	for k := range waiting {
		orphan = orphan || !live[k]
	}
	if orphan && !j.orphan {
		j.since = w.now
	}
	j.orphan = orphan
}

func (j *judge) livenessDeadline(bound time.Duration) (time.Duration, bool) {
	if !j.orphan || j.isBroken(InvLiveness) {
		return 0, false
	}
	return j.since + bound, true
}

// checkLiveness reports a broken liveness once the bound has run out.
func (w *World) checkLiveness() {
	d, on := w.judge.livenessDeadline(w.setup.LivenessBound)
	if !on || w.now < d {
		return
	}
	var waiting, self, hung []string
	for _, c := range w.clients {
		if c.crashed {
			continue
		}
		if c.belief == BeliefWaiting || c.reentering {
			waiting = append(waiting, c.name)
		}
		if c.reentering {
			self = append(self, c.name)
		}
		if c.belief == BeliefHolds && c.hung {
			hung = append(hung, c.name)
		}
	}
	w.violate(InvLiveness, textLiveness(waiting, w.now-w.judge.since, self, hung, w.lockKeyAnywhere()))
}

// lockKeyAnywhere says whether the lock's key is on some server that is
// up: a liveness break with it there is an orphaned lock; without it, the
// waiters' attempts fail on a free lock.
func (w *World) lockKeyAnywhere() bool {
	for _, srv := range w.servers {
		if _, ok := findKey(srv.keys, w.setup.Key); ok && srv.up {
			return true
		}
	}
	return false
}
