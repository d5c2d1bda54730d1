package external_test

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/lockimpl/external"
	text "github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// needsPython skips a test on a machine without a Python that has redis-py,
// saying how to run it.
func needsPython(t *testing.T) {
	t.Helper()
	if err := external.NeedsPython(); err != nil {
		t.Skipf("the Python locks' tests need it: %v", err)
	}
}

func run(t *testing.T, lesson, impl string) *trace.Trace {
	t.Helper()
	s, err := scenarios.Lookup(lesson)
	if err != nil {
		t.Fatal(err)
	}
	info, err := lockimpl.Lookup(impl)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(info)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func timeline(t *testing.T, tr *trace.Trace) string {
	var b strings.Builder
	if err := text.Timeline(&b, tr, "en"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// redis-py's Lock at its default takes the lock with no expiry: the crashed
// holder's lock never goes, and the waiter is orphaned. With timeout= the
// lease, the lock expires and the waiter gets it.
func TestPyRedisLockDefaultNeverExpires(t *testing.T) {
	needsPython(t)
	tr := run(t, "setnx-no-ex", "py-redis-lock")
	if got := strings.Join(tr.Broken(), ","); got != "liveness" {
		t.Errorf("py-redis-lock in setnx-no-ex broke %q, want liveness\n%s", got, timeline(t, tr))
	}
	if !strings.Contains(timeline(t, tr), "SET lock:product:1001 A~1 NX → OK") {
		t.Errorf("want redis-py's own SET … NX, with no PX:\n%s", timeline(t, tr))
	}
	tr = run(t, "setnx-no-ex", "py-redis-lock-timeout")
	if got := tr.Broken(); len(got) != 0 {
		t.Errorf("py-redis-lock-timeout in setnx-no-ex broke %v, want none\n%s", got, timeline(t, tr))
	}
	if !strings.Contains(timeline(t, tr), "SET lock:product:1001 A~1 PX 30000 NX → OK") {
		t.Errorf("want SET … NX PX 30000:\n%s", timeline(t, tr))
	}
}
