package lockimpl_test

import (
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

var _ lockimpl.Fencer = (*lockimpl.RedlockFenced)(nil)

// redlock-fenced's token is the largest count among the nodes that said OK.
// The counts drift apart (a node counts only the holds it granted), and a
// majority that misses the node that ran ahead answers with a lower token:
// the sequence goes backwards, with no restart at all.
func TestRedlockFencedTokenIsTheMajoritysLargestCount(t *testing.T) {
	cl := newCluster(t, lockimpl.RedlockNodes)
	a := cl.handle(t, "redlock-fenced", "A")
	b := cl.handle(t, "redlock-fenced", "B")
	mustAcquire(t, a)
	if got := fenceOf(t, a); got != 1 {
		t.Fatalf("first token = %d, want 1", got)
	}
	mustRelease(t, a)
	if got := fenceOf(t, a); got != 0 {
		t.Errorf("Fence after Release = %d, want 0", got)
	}
	// redis-1 ran ahead: it granted holds the others did not see.
	if err := cl.servers[0].Set(lockimpl.FenceKey(testKey), "5"); err != nil {
		t.Fatal(err)
	}
	mustAcquire(t, a)
	if got := fenceOf(t, a); got != 6 {
		t.Fatalf("token with redis-1 at 6, the rest at 2 = %d, want the largest, 6", got)
	}
	mustRelease(t, a)
	// Another client holds redis-1 and redis-2; B's majority is redis-3..5.
	for _, m := range cl.servers[:2] {
		plantOther(t, "redlock-fenced", m, "X#1")
	}
	mustAcquire(t, b)
	if got := fenceOf(t, b); got != 3 {
		t.Fatalf("B's token from redis-3..5 = %d, want 3", got)
	}
	// 6, then 3: the next holder's token is lower than the last one's.
	mustRelease(t, b)
}
