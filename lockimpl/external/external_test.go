package external_test

import (
	"bytes"
	"encoding/json"
	"os"
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

// Two runs of a Python lock through a lesson give the same trace, byte for
// byte, but for the raw values of the tokens redis-py draws (uuid1), which
// Trace.Tokens keeps beside their names. Every lesson with LOCKSTEP_LONG=1
// (CI); three otherwise.
func TestPythonLocksGiveTheSameTraceTwice(t *testing.T) {
	needsPython(t)
	lessons := []string{"setnx-no-ex", "del-other", "gc-pause"}
	if os.Getenv("LOCKSTEP_LONG") != "" {
		lessons = nil
		for _, s := range scenarios.All() {
			lessons = append(lessons, s.ID)
		}
	}
	for _, impl := range []string{"py-redis-lock", "py-redis-lock-timeout"} {
		for _, id := range lessons {
			var body [2][]byte
			for i := range body {
				tr := run(t, id, impl)
				tr.Tokens = nil
				b, err := json.MarshalIndent(tr, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				body[i] = b
			}
			if !bytes.Equal(body[0], body[1]) {
				t.Errorf("%s × %s: two runs differ beyond their tokens' raw values", id, impl)
			}
		}
	}
}

// A lesson's run of a Python lock, its agents' processes started and ended
// with it: the bound is a second.
func BenchmarkPythonLesson(b *testing.B) {
	if err := external.NeedsPython(); err != nil {
		b.Skip(err)
	}
	s, err := scenarios.Lookup("del-other")
	if err != nil {
		b.Fatal(err)
	}
	info, _ := lockimpl.Lookup("py-redis-lock-timeout")
	for b.Loop() {
		if _, err := s.Run(info); err != nil {
			b.Fatal(err)
		}
	}
}

// A Python lock's whole row: every lesson, one after the other, as check
// runs a row on one core. The bound is 30 s.
func BenchmarkPythonRow(b *testing.B) {
	if err := external.NeedsPython(); err != nil {
		b.Skip(err)
	}
	info, _ := lockimpl.Lookup("py-redis-lock-timeout")
	for b.Loop() {
		for _, s := range scenarios.All() {
			if _, err := s.Run(info); err != nil {
				b.Fatal(err)
			}
		}
	}
}
