package external_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/lockimpl/external"
	text "github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// needsPython skips a test unless LOCKSTEP_REQUIRE_PYTHON=1 (.ci/run sets
// it): the Python locks' tests start a Python process for every client, a
// quarter of go test ./...'s CPU. With it, a machine without a Python
// that has redis-py fails them.
func needsPython(t *testing.T) {
	t.Helper()
	if os.Getenv("LOCKSTEP_REQUIRE_PYTHON") != "1" {
		t.Skip("skipped: the Python locks' tests run with LOCKSTEP_REQUIRE_PYTHON=1 (and python3-redis)")
	}
	if err := external.NeedsPython(); err != nil {
		t.Fatalf("LOCKSTEP_REQUIRE_PYTHON=1, and the Python locks' tests need: %v", err)
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
	t.Parallel()
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

// The course's own ReentrantLock checks with GET and writes with a SET
// without NX: in reentrant-race both clients read a free key, and both
// write it and hold the lock.
func TestCourseReentrantLetsTwoIn(t *testing.T) {
	needsPython(t)
	t.Parallel()
	tr := run(t, "reentrant-race", "py-course-reentrant")
	if !slices.Contains(tr.Broken(), "mutex") || !strings.Contains(timeline(t, tr), "SET lock:product:1001 A~1 EX 30 → OK") {
		t.Errorf("py-course-reentrant in reentrant-race broke %v; want mutex, with the course's SET … EX without NX:\n%s", tr.Broken(), timeline(t, tr))
	}
}

// Two runs of a Python lock through a lesson give the same trace, byte for
// byte, but for the raw values of the tokens redis-py draws (uuid1), which
// Trace.Tokens keeps beside their names: two lessons here, every lesson in
// TestPythonLocksSameTwiceLong.
func TestPythonLocksGiveTheSameTraceTwice(t *testing.T) {
	needsPython(t)
	t.Parallel()
	sameTwice(t, "setnx-no-ex", "gc-pause")
}

// TestPythonLocksSameTwiceLong is TestPythonLocksGiveTheSameTraceTwice
// through every lesson, with LOCKSTEP_LONG=1 (CI's long tests): every
// lesson with each lock, and twice with one of them (everyLessonOf).
func TestPythonLocksSameTwiceLong(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") == "" {
		t.Skip("every lesson with each Python lock: LOCKSTEP_LONG=1")
	}
	needsPython(t)
	t.Parallel()
	everyLessonOf(t, pythonLocks, scenarios.IDs())
}

var pythonLocks = []string{"py-redis-lock", "py-redis-lock-timeout", "py-course-reentrant"}

func sameTwice(t *testing.T, lessons ...string) {
	sameTwiceOf(t, pythonLocks, lessons...)
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

// The Python example (examples/python/mylock.py) meets, lesson by lesson,
// what the lessons expect of uuid-lua, the Go lock it is (six lessons here,
// every one in TestPythonExampleLong); with a plain DEL for its release it
// breaks ownership in del-other, by its DEL.
func TestPythonExample(t *testing.T) {
	needsPython(t)
	t.Parallel()
	example := filepath.Join("..", "..", "examples", "python", "mylock.py")
	asUUIDLua(t, example, firstLessons())
	plainDelBreaksOwnership(t, example, "PLAIN_DEL = False", "PLAIN_DEL = True")
}

// plainDelBreaksOwnership runs example, its flag from turned to, through
// del-other, where a plain DEL for its release breaks ownership, by its
// DEL.
func plainDelBreaksOwnership(t *testing.T, example, from, to string) {
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), from) {
		t.Fatalf("%s has no %q", example, from)
	}
	plain := filepath.Join(t.TempDir(), "plain_del"+filepath.Ext(example))
	if err := os.WriteFile(plain, []byte(strings.Replace(string(src), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := lockimpl.Lookup(plain)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Lookup("del-other")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(info)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tr.Broken(), "ownership") || !strings.Contains(timeline(t, tr), "DEL lock:product:1001") {
		t.Errorf("a plain DEL in del-other broke %v, want ownership, by its DEL:\n%s", tr.Broken(), timeline(t, tr))
	}
}

// firstLessons are the lessons an example runs in go test ./...: the first
// six, or under the race detector two of them (race.Enabled), where it
// looks at lockstep's goroutines, which the first two use as the six do,
// not at what the libraries make of each lesson. The long tests run all.
func firstLessons() []scenarios.Scenario {
	if race.Enabled {
		return scenarios.All()[:2]
	}
	return scenarios.All()[:6]
}

// TestPythonExampleLong is TestPythonExample's first half through every
// lesson, with LOCKSTEP_LONG=1 (CI's long tests).
func TestPythonExampleLong(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") == "" {
		t.Skip("the Python example through every lesson: LOCKSTEP_LONG=1")
	}
	needsPython(t)
	t.Parallel()
	asUUIDLua(t, filepath.Join("..", "..", "examples", "python", "mylock.py"), scenarios.All())
}

// asUUIDLua runs the lock of one's own in file through lessons, and holds
// each verdict to uuid-lua's row.
func asUUIDLua(t *testing.T, file string, lessons []scenarios.Scenario) {
	info, err := lockimpl.Lookup(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lessons {
		tr, err := s.Run(info)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		if got, want := tr.Broken(), s.Expect["uuid-lua"]; !slices.Equal(got, want) {
			t.Errorf("%s × %s broke %v; uuid-lua's row is %v", s.ID, filepath.Base(file), got, want)
		}
	}
}

// A lock of one's own that fails in the ways a new one does is its cell's
// error, which says how, and leaves no process behind: one that raises as
// it loads, one that writes on the control channel, one that connects to a
// Redis that is not the run's, and one that never answers (the stall
// bound, short here).
func TestPythonAdapterFailures(t *testing.T) {
	needsPython(t)
	t.Parallel()
	adapterFailures(t, "lockstep_agent.py", ".py", []failure{
		{"raises", "raise ValueError('boom')\n", "ValueError: boom"},
		{"garbage", "import os\nos.write(1, b'hello\\n')\ndef make(nodes, key, ttl_ms, options):\n    pass\n",
			`the agent wrote "hello" on its control channel, not a report`},
		{"foreign", "import redis\nclass L:\n    def acquire(self):\n        return redis.Redis(port=1).set('k', 'v')\n    def release(self):\n        pass\ndef make(nodes, key, ttl_ms, options):\n    return L()\n",
			"the lock connects to localhost:1, which is none of the run's nodes"},
		{"spins", "def make(nodes, key, ttl_ms, options):\n    while True:\n        pass\n", "stalled"},
	})
}

// failure is an adapter that fails, and what its cell's error says.
type failure struct{ name, src, want string }

// adapterFailures runs each failing adapter (a file with extension ext)
// through del-other: its cell's error says how it failed, and the agent
// (agentFile) is gone once the run has ended.
func adapterFailures(t *testing.T, agentFile, ext string, cases []failure) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), c.name+ext)
			if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			info, err := lockimpl.Lookup(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenarios.Lookup("del-other")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if c.name == "spins" {
				// Long enough for Python to start on a busy machine.
				ctx = sim.WithStallTimeout(ctx, 3*time.Second)
			}
			tr, err := s.RunOn(ctx, info, nil)
			msg := fmt.Sprint(err)
			if err == nil {
				msg = timeline(t, tr)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("want %q in the cell's error; got:\n%s", c.want, msg)
			}
			// Killed as the run ends: gone once the kernel has had a moment.
			for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				out, _ := exec.Command("pgrep", "-f", agentFile+" "+file).Output()
				if len(out) == 0 {
					break
				}
				if time.Now().After(end) {
					t.Errorf("the agent of %s still runs: pid %s", c.name, out)
					break
				}
			}
		})
	}
}
