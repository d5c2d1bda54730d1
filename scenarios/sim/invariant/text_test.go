package invariant

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
)

// The invariants' words in Chinese: a stale read is 陈旧的读数, an orphaned
// lock 锁无人释放 (issue #14); and liveness's English counts its waiters.
func TestInvariantTextChinese(t *testing.T) {
	if zh := textLostUpdate("A", narrate.WriteResult{}).ZH; strings.Contains(zh, "过期") || !strings.Contains(zh, "陈旧的读数") {
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
}
