package invariant

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// liveness: once the holder is dead, done or hung, a waiting client gets
// the lock within a bounded time.
type liveness struct{}

func init() { register(3, liveness{}) }

func (liveness) Info() Info {
	return Info{ID: Liveness, Name: text.Text{EN: Liveness, ZH: "活性"},
		Rule: text.Text{
			EN: "once the holder is dead, done or hung, a waiting client gets the lock within a bounded time (no orphaned lock, no self-deadlock, no endless renewal)",
			ZH: "持有者崩溃、结束或卡死后，等待的客户端能在有限时间内拿到锁（没有无人释放的锁、没有自己锁死自己、没有无限续期）"}}
}

func (liveness) New(s Settings) Check { return &livenessCheck{bound: s.LivenessBound} }

// livenessCheck: some client has been waiting for longer than the bound
// (Setup.LivenessBound, 2 × TTL by default) while no live client holds the
// lock. Its clock is kept after every event; it is judged only once an
// instant's due work has run (Instant), so that a waiter whose retry is
// due at the instant the bound runs out retries first. It is a Timer: the
// run's time moves to the bound.
type livenessCheck struct {
	bound time.Duration // Settings.LivenessBound
	// orphan: some client waits while no live client holds its lock, since
	// since.
	orphan bool
	since  time.Duration
	broken bool // it has broken: its clock is done
}

// Observe implements Check.
func (l *livenessCheck) Observe(w World, o Observation) []text.Text {
	switch o.Kind {
	case Event:
		l.update(w)
	case Instant:
		return l.judge(w)
	}
	return nil
}

// Since implements Timer.
func (l *livenessCheck) Since() (time.Duration, bool) { return l.since, l.orphan }

// Due implements Timer: when the liveness bound runs out, if its clock
// runs and it is not broken yet.
func (l *livenessCheck) Due() (time.Duration, bool) {
	if !l.orphan || l.broken {
		return 0, false
	}
	return l.since + l.bound, true
}

// update tracks whether some client waits while no live client holds
// the lock: from that moment the liveness bound runs. A holder whose business
// goroutine hangs, or waits for the lock it holds itself, is not live: it
// will not give the lock back.
func (l *livenessCheck) update(w World) {
	// Per lock: clients with keys of their own wait for their own.
	waiting, live := map[string]bool{}, map[string]bool{}
	for _, c := range w.Clients() {
		if c.Crashed {
			continue
		}
		switch {
		case (c.Belief == trace.BeliefWaiting || c.Reentering) && !c.Paused:
			// A paused waiter is not kept out by the lock: it is not
			// trying.
			waiting[c.Key] = true
		case (c.Belief == trace.BeliefHolds || c.Op == trace.OpRelease) && !c.Hung:
			// A client still releasing is at work on the lock too.
			live[c.Key] = true
		}
	}
	orphan := false
	for k := range waiting {
		orphan = orphan || !live[k]
	}
	if orphan && !l.orphan {
		l.since = w.Now()
	}
	l.orphan = orphan
}

// judge reports a broken liveness once the bound has run out.
func (l *livenessCheck) judge(w World) []text.Text {
	d, on := l.Due()
	if !on || w.Now() < d {
		return nil
	}
	var waiting, self, hung []string
	for _, c := range w.Clients() {
		if c.Crashed {
			continue
		}
		if c.Belief == trace.BeliefWaiting || c.Reentering {
			waiting = append(waiting, c.Name)
		}
		if c.Reentering {
			self = append(self, c.Name)
		}
		if c.Belief == trace.BeliefHolds && c.Hung {
			hung = append(hung, c.Name)
		}
	}
	l.broken = true
	return []text.Text{textLiveness(waiting, w.Now()-l.since, self, hung, w.LockKeyUp())}
}

func textLiveness(waitingList []string, d time.Duration, selfList []string, hungList []string, keyHeld bool) text.Text {
	waiting, waitingZH := narrate.AndList(waitingList), strings.Join(waitingList, "、")
	has := "has"
	if len(waitingList) > 1 {
		has = "have"
	}
	switch {
	case len(hungList) > 0:
		hung, hungZH := narrate.AndList(hungList), strings.Join(hungList, "、")
		return text.Text{
			EN: fmt.Sprintf("%s %s waited %s while the holder, %s, is hung and still keeps the lock", waiting, has, narrate.Secs(d), hung),
			ZH: fmt.Sprintf("%s 已等待 %s，而持有者 %s 已经卡死，却仍占着锁", waitingZH, narrate.SecsZH(d), hungZH),
		}
	case len(selfList) > 0:
		return textSelfDeadlock(waitingList, d, selfList)
	case !keyHeld:
		return text.Text{
			EN: fmt.Sprintf("%s %s waited %s for a lock nobody holds: every attempt fails", waiting, has, narrate.Secs(d)),
			ZH: fmt.Sprintf("%s 已等待 %s，锁明明没人持有，每次加锁却都失败", waitingZH, narrate.SecsZH(d)),
		}
	}
	return text.Text{
		EN: fmt.Sprintf("%s %s waited %s while no live client holds the lock: it is orphaned", waiting, has, narrate.Secs(d)),
		ZH: fmt.Sprintf("%s 已等待 %s，而没有任何存活的客户端持有锁：锁无人释放（死锁）", waitingZH, narrate.SecsZH(d)),
	}
}

// textSelfDeadlock is liveness broken by clients that wait for the lock
// they hold themselves (a nested acquire of a lock that is not
// reentrant), and whoever waits behind them.
func textSelfDeadlock(waitingList []string, d time.Duration, selfList []string) text.Text {
	self, selfZH := narrate.AndList(selfList), strings.Join(selfList, "、")
	has, it, holds, itself := "has", "it", "holds", "itself"
	if len(selfList) > 1 {
		has, it, holds, itself = "have", "they", "hold", "themselves"
	}
	t := text.Text{
		EN: fmt.Sprintf("%s %s waited %s for a lock %s %s %s: %s %s deadlocked on %s", self, has, narrate.Secs(d), it, holds, itself, it, has, itself),
		ZH: fmt.Sprintf("%s 已等待 %s，等的是自己持有的锁：自己把自己锁死了", selfZH, narrate.SecsZH(d)),
	}
	var others []string
	for _, c := range waitingList {
		if !slices.Contains(selfList, c) {
			others = append(others, c)
		}
	}
	if len(others) > 0 {
		waits, behind := "waits", "it"
		if len(others) > 1 {
			waits = "wait"
		}
		if len(selfList) > 1 {
			behind = "them"
		}
		t.EN += fmt.Sprintf(", and %s %s behind %s", narrate.AndList(others), waits, behind)
		t.ZH += fmt.Sprintf("；%s 也在后面等着", strings.Join(others, "、"))
	}
	return t
}
