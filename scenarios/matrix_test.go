package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
)

// TestMatrix asserts the lesson: for every failure mode and implementation,
// exactly the expected invariants break.
func TestMatrix(t *testing.T) {
	for _, s := range All() {
		for _, impl := range lockimpl.All() {
			t.Run(s.ID+"/"+impl.Name, func(t *testing.T) {
				tr, err := s.Run(impl)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := tr.Broken(), Expected(s.ID, impl.Name); !slices.Equal(got, want) {
					t.Errorf("broken invariants = %v, want %v", got, want)
				}
			})
		}
	}
}

// TestMatrixWellFormed guards the table itself: known names only, and each
// list in invariant order (check compares them as they are).
func TestMatrixWellFormed(t *testing.T) {
	order := sim.InvariantIDs()
	for id, row := range expected {
		if _, err := Lookup(id); err != nil {
			t.Errorf("matrix row: %v", err)
		}
		for name, invs := range row {
			if _, err := lockimpl.Lookup(name); err != nil {
				t.Errorf("matrix %s: %v", id, err)
			}
			if len(invs) == 0 {
				t.Errorf("matrix %s × %s: empty list; leave the entry out instead", id, name)
			}
			last := -1
			for _, inv := range invs {
				i := slices.Index(order, inv)
				if i <= last {
					t.Errorf("matrix %s × %s: %v not a list of distinct invariants in order %v", id, name, invs, order)
				}
				last = i
			}
		}
	}
}

// TestCheckResults: Check reports every cell once, in catalogue order, and
// they all pass.
func TestCheckResults(t *testing.T) {
	results, err := Check()
	if err != nil {
		t.Fatal(err)
	}
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

// TestDeterministic runs every cell twice: the traces must be identical byte
// for byte.
func TestDeterministic(t *testing.T) {
	for _, s := range All() {
		for _, impl := range lockimpl.All() {
			first, second := traceJSON(t, s, impl), traceJSON(t, s, impl)
			if !bytes.Equal(first, second) {
				t.Errorf("%s × %s: two runs gave different traces", s.ID, impl.Name)
			}
		}
	}
}

func traceJSON(t *testing.T, s Scenario, impl lockimpl.Info) []byte {
	t.Helper()
	tr, err := s.Run(impl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoGoroutineOutlivesARun: after the whole matrix, the goroutine count
// is back where it started.
func TestNoGoroutineOutlivesARun(t *testing.T) {
	before := runtime.NumGoroutine()
	if _, err := Check(); err != nil {
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
}

func ExampleExpected() {
	fmt.Println(Expected("get-then-del", "uuid-get-del"))
	fmt.Println(Expected("get-then-del", "uuid-lua"))
	// Output:
	// [mutex ownership resource]
	// []
}
