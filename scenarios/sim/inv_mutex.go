package sim

import (
	"fmt"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// InvMutex: at no instant do two live clients believe they hold the lock.
const InvMutex = "mutex"

func init() {
	register(Invariant{ID: InvMutex, rank: 1, Name: text.Text{EN: InvMutex, ZH: "互斥"},
		Rule: text.Text{
			EN: "at no instant do two live clients believe they hold the lock (a paused client still believes)",
			ZH: "任何时刻都不会有两个存活的客户端同时认为自己持有锁（暂停中的客户端仍然认为自己持有）"},
		newCheck: func() check { return &mutexCheck{pairs: map[string]bool{}} }})
}

// mutexCheck is judged after every event: a client believes it holds the
// lock from the moment TryAcquire returns true until it starts Release, or
// until its watchdog reports the lock lost. Every new pair of live (not
// crashed) clients that both believe they hold one lock breaks it (the
// same lock: clients with keys of their own hold locks apart).
type mutexCheck struct {
	pairs map[string]bool // holder pairs already reported
}

func (m *mutexCheck) observe(w *World, o observation) []text.Text {
	if o.kind != obsEvent {
		return nil
	}
	var out []text.Text
	for _, holders := range w.byKey(func(c *client) bool { return c.belief == trace.BeliefHolds && !c.crashed }) {
		if m.fresh(holders) {
			out = append(out, textMutex(holders))
		}
	}
	return out
}

// fresh says whether two of holders are a pair not reported yet.
func (m *mutexCheck) fresh(holders []string) bool {
	fresh := false
	for i := range holders {
		for k := i + 1; k < len(holders); k++ {
			pair := holders[i] + "+" + holders[k]
			if !m.pairs[pair] {
				m.pairs[pair] = true
				fresh = true
			}
		}
	}
	return fresh
}

func textMutex(holders []string) text.Text {
	h := strings.Join(holders[:len(holders)-1], ", ") + " and " + holders[len(holders)-1]
	both := "both"
	if len(holders) > 2 {
		both = "all"
	}
	return text.Text{EN: fmt.Sprintf("%s %s believe they hold the lock at the same time", h, both),
		ZH: fmt.Sprintf("%s 同时认为自己持有锁：互斥被破坏", narrate.AndListZH(holders))}
}
