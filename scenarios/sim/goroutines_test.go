package sim

import "testing"

// A goroutine is blocked, for the engine, only when it waits for another
// goroutine of the run. A wait for a mutex or a runtime semaphore ends by
// itself: counted as blocked, a flight allocating while a garbage collection
// started ("semacquire") made a run look quiet before it reached the gate,
// and a search's replay missed a move under load.
func TestBlockedStates(t *testing.T) {
	for state, want := range map[string]bool{
		"chan receive":            true,
		"chan receive (nil chan)": true,
		"chan send":               true,
		"select":                  true,
		"select (no cases)":       true,
		"sync.WaitGroup.Wait":     true,
		"sync.Cond.Wait":          true,
		"semacquire":              false,
		"sync.Mutex.Lock":         false,
		"sync.RWMutex.RLock":      false,
		"sync.RWMutex.Lock":       false,
		"running":                 false,
		"runnable":                false,
		"IO wait":                 false,
		"sleep":                   false,
		"GC assist wait":          false,
		"syscall":                 false,
	} {
		if got := (goroutine{state: state}).blocked(); got != want {
			t.Errorf("%q: blocked %v, want %v", state, got, want)
		}
	}
	if (goroutine{state: "select", sending: true}).blocked() {
		t.Error("a goroutine sending to the scheduler counts as blocked")
	}
}
