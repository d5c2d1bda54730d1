package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// sharedResults is one run of the whole matrix, shared by the tests that
// only read it (the matrix takes a second or two). Do not change it. Tests
// of determinism and of leaks run the matrix again, fresh.
var sharedResults = sync.OnceValues(Check)

func sharedCheck(t *testing.T) []Result {
	t.Helper()
	results, err := sharedResults()
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// TestMatrix asserts the lesson: for every failure mode and implementation,
// exactly the expected invariants break.
func TestMatrix(t *testing.T) {
	for _, r := range sharedCheck(t) {
		t.Run(r.Scenario+"/"+r.Impl, func(t *testing.T) {
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			if got, want := r.Broken, Expected(r.Scenario, r.Impl); !slices.Equal(got, want) {
				t.Errorf("broken invariants = %v, want %v", got, want)
			}
		})
	}
}

// TestEveryLessonJudgesEveryImplementation: a built-in lesson's expectation
// row names every implementation of the catalogue, so that a new
// implementation is judged by every lesson (a line in each lesson file's
// expect block, which go generate ./... writes from the cell's run), not
// silently reported.
func TestEveryLessonJudgesEveryImplementation(t *testing.T) {
	for _, s := range All() {
		for _, impl := range lockimpl.All() {
			if _, ok := s.Expected(impl.Name); !ok {
				t.Errorf("%s has no expectation for %s: run go generate ./..., which writes its row from the run (review it in the diff)",
					s.File, impl.Name)
			}
		}
	}
}

// TestCheckResults: Check reports every cell once, in catalogue order, and
// they all pass.
func TestCheckResults(t *testing.T) {
	results := sharedCheck(t)
	if want := len(All()) * len(lockimpl.All()); len(results) != want {
		t.Fatalf("%d results, want %d", len(results), want)
	}
	i := 0
	for _, s := range All() {
		for _, impl := range lockimpl.All() {
			r := results[i]
			if r.Scenario != s.ID || r.Impl != impl.Name {
				t.Errorf("result %d is %s × %s, want %s × %s", i, r.Scenario, r.Impl, s.ID, impl.Name)
			}
			if !r.Pass {
				t.Errorf("%s × %s: broken %v, expected %v", r.Scenario, r.Impl, r.Broken, r.Expected)
			}
			i++
		}
	}
}

// TestDeterministic runs the matrix a second time: the same traces byte for
// byte, and afterwards the goroutine count is back where it started (no
// goroutine outlives a run). Not under the race detector: TestMatrix runs
// the matrix there once, and this run would take a minute more.
func TestDeterministic(t *testing.T) {
	if race.Enabled {
		t.Skip("the matrix a second time; run without -race")
	}
	before := runtime.NumGoroutine()
	first := sharedCheck(t)
	again, err := Check()
	if err != nil {
		t.Fatal(err)
	}
	// Goroutines that have returned may take a moment to be counted out.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%d goroutines after the matrix, %d before:\n%s", n, before, buf)
	}
	for i, r := range first {
		if first, second := traceJSON(t, r.Trace), traceJSON(t, again[i].Trace); !bytes.Equal(first, second) {
			t.Errorf("%s × %s: two runs gave different traces", r.Scenario, r.Impl)
		}
	}
}

func traceJSON(t *testing.T, tr *trace.Trace) []byte {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ExampleExpected() {
	fmt.Println(Expected("get-then-del", "uuid-get-del"))
	fmt.Println(Expected("get-then-del", "uuid-lua"))
	// Output:
	// [mutex ownership resource]
	// []
}

// A cell that drifted runs again twice as slow, or as slow as its drift
// needs for a margin of 1.25 times it (#37 item 11: redsync-redlock's drift
// of about 65ms is a fixed cost, which doubling from 30ms per scenario
// second never outgrew in two runs); the jump for a drift stops at a second
// per scenario second, and a user's slower scale only doubles.
func TestSlowerSecond(t *testing.T) {
	for _, tc := range []struct{ second, drift, want time.Duration }{
		{30 * time.Millisecond, 16 * time.Millisecond, 60 * time.Millisecond},
		{30 * time.Millisecond, 70 * time.Millisecond, 175 * time.Millisecond},
		{30 * time.Millisecond, 2 * time.Second, time.Second},
		{30 * time.Millisecond, 112926793, 282 * time.Millisecond}, // whole milliseconds
		{2 * time.Second, 3 * time.Second, 4 * time.Second},
	} {
		if got := slowerSecond(tc.second, tc.drift); got != tc.want {
			t.Errorf("slowerSecond(%s, %s) = %s, want %s", tc.second, tc.drift, got, tc.want)
		}
	}
}
