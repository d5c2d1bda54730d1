package invariant

import (
	"fmt"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// mutex: at no instant do two live clients believe they hold the lock,
// unless both only read (the readers of a read-write lock).
type mutex struct{}

func init() { register(1, mutex{}) }

func (mutex) Info() Info {
	return Info{ID: Mutex, Name: text.Text{EN: Mutex, ZH: "互斥"},
		Rule: text.Text{
			EN: "at no instant do two live clients believe they hold the lock (a paused client still believes), unless both only read",
			ZH: "任何时刻都不会有两个存活的客户端同时认为自己持有锁（暂停中的客户端仍然认为自己持有），两个都只读的除外"}}
}

func (mutex) New(Settings) Check { return &mutexCheck{pairs: map[string]bool{}} }

// mutexCheck is judged after every event: a client believes it holds the
// lock from the moment TryAcquire returns true until it starts Release, or
// until its watchdog reports the lock lost. Every new pair of live (not
// crashed) clients that both believe they hold one lock breaks it (the
// same lock: clients with keys of their own hold locks apart), unless
// both are readers: many readers or one writer.
type mutexCheck struct {
	pairs map[string]bool // holder pairs already reported
}

// Observe implements Check.
func (m *mutexCheck) Observe(w World, o Observation) []text.Text {
	if o.Kind != Event {
		return nil
	}
	var out []text.Text
	for _, holders := range byKey(w.Clients(), func(c Client) bool { return c.Belief == trace.BeliefHolds && !c.Crashed }) {
		if names := m.fresh(holders); names != nil {
			out = append(out, textMutex(names))
		}
	}
	return out
}

// fresh returns the names of holders, when two of them are a pair not
// reported yet that are not both readers; nil otherwise.
func (m *mutexCheck) fresh(holders []Client) []string {
	fresh := false
	for i := range holders {
		for k := i + 1; k < len(holders); k++ {
			pair := holders[i].Name + "+" + holders[k].Name
			if !m.pairs[pair] && !(holders[i].Reads && holders[k].Reads) {
				m.pairs[pair] = true
				fresh = true
			}
		}
	}
	if !fresh {
		return nil
	}
	names := make([]string, len(holders))
	for i, c := range holders {
		names[i] = c.Name
		if c.Reads {
			names[i] += readerMark
		}
	}
	return names
}

// byKey groups the clients for which pick says yes by the key they take,
// in the order the keys first come.
func byKey(clients []Client, pick func(c Client) bool) [][]Client {
	var groups [][]Client
	at := map[string]int{}
	for _, c := range clients {
		if !pick(c) {
			continue
		}
		i, ok := at[c.Key]
		if !ok {
			i = len(groups)
			at[c.Key] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// readerMark follows a reader's name among the holders that break mutex.
const readerMark = " (reader)"

func textMutex(holders []string) text.Text {
	h := strings.Join(holders[:len(holders)-1], ", ") + " and " + holders[len(holders)-1]
	both := "both"
	if len(holders) > 2 {
		both = "all"
	}
	zh := make([]string, len(holders))
	for i, n := range holders {
		if name, ok := strings.CutSuffix(n, readerMark); ok {
			n = "读者 " + name
		}
		zh[i] = n
	}
	return text.Text{EN: fmt.Sprintf("%s %s believe they hold the lock at the same time", h, both),
		ZH: fmt.Sprintf("%s 同时认为自己持有锁：互斥被破坏", narrate.AndListZH(zh))}
}
