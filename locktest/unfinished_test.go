package locktest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/stall"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// recorder is a testing.TB that keeps what Run reports, so that a test can
// look at a failure Run gives without failing itself. Run, given no
// *testing.T, runs Check in this process.
type recorder struct {
	testing.TB
	mu         sync.Mutex
	errs, logs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// oneLesson is get-then-del, a lesson stall's locks keep.
func oneLesson(t *testing.T) Option {
	s, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	return Lessons(s)
}

// Issue #38, item 3: a search that ran out of time, with nothing found in
// the moves it reached, is no pass. A lock that spends 20 ms of CPU on
// every acquire gets a fraction of a search in 300 ms: Run fails, saying
// how deep the search got and how to give it what it needs.
func TestUnfinishedSearchFails(t *testing.T) {
	info := stall.Slow(20 * time.Millisecond)
	r := &recorder{TB: t}
	Run(r, info, oneLesson(t), SearchTimeout(300*time.Millisecond), TraceDir(t.TempDir()))
	if len(r.errs) != 1 {
		t.Fatalf("Run reported %d failures, want 1 (the unfinished search): %q", len(r.errs), r.errs)
	}
	for _, want := range []string{"explore × stall-slow: the search did not finish", "stopped at its time bound of 300ms",
		"moves deep of the 14 asked", "locktest.SearchTimeout", "locktest.AllowUnfinished"} {
		if !strings.Contains(r.errs[0], want) {
			t.Errorf("the failure lacks %q:\n%s", want, r.errs[0])
		}
	}
}

// AllowUnfinished makes an unfinished search a skip, said in the test's
// log and in Check's problems (allowed), not a failure.
func TestAllowUnfinished(t *testing.T) {
	info := stall.Slow(20 * time.Millisecond)
	r := &recorder{TB: t}
	Run(r, info, oneLesson(t), SearchTimeout(300*time.Millisecond), AllowUnfinished(), TraceDir(t.TempDir()))
	if len(r.errs) != 0 {
		t.Errorf("Run failed: %q", r.errs)
	}
	if log := strings.Join(r.logs, "\n"); !strings.Contains(log, "the search did not finish") || !strings.Contains(log, "skipped, as AllowUnfinished asks") {
		t.Errorf("the log does not say the search was skipped:\n%s", log)
	}
	// Allow of every invariant is not AllowUnfinished: the search did
	// not judge them.
	problems, err := Check(info, oneLesson(t), SearchTimeout(300*time.Millisecond), Allow("*"), TraceDir(t.TempDir()))
	if err != nil || !containsProblem(problems, Explored, Unfinished) {
		t.Fatalf("Check = %v, %v; want the unfinished search", problems, err)
	}
	for _, p := range problems {
		if p.Invariant == Unfinished && p.Allowed {
			t.Errorf("Allow(\"*\") allowed the unfinished search")
		}
	}
}

// Issue #38, item 4: a Release blocked for good is the search's error
// too, naming the call and the schedule, as it is each lesson's.
func TestSearchOfABlockedRelease(t *testing.T) {
	_, err := Check(stall.Stuck(), oneLesson(t), TraceDir(t.TempDir()))
	for _, want := range []string{"get-then-del × stall-release could not run", "the search: the search stopped after the moves A, ",
		"A's Release is blocked in the lock implementation stall-release"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q: %v", want, err)
		}
	}
}
