package sim

import (
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
)

// Fixed interval, capped doubling, and jitter within the upper half of the
// wait, drawn the same way on every run.
func TestRetryWait(t *testing.T) {
	ms := time.Millisecond
	fixed := model.Program{Retry: 200 * ms}
	backoff := model.Program{Retry: 200 * ms, Backoff: 1600 * ms}
	var gotFixed, gotBackoff []time.Duration
	for attempt := 1; attempt <= 6; attempt++ {
		gotFixed = append(gotFixed, fixed.RetryWait(attempt, nil))
		gotBackoff = append(gotBackoff, backoff.RetryWait(attempt, nil))
	}
	wantBackoff := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 1600 * ms, 1600 * ms}
	for i := range gotFixed {
		if gotFixed[i] != 200*ms {
			t.Errorf("fixed, attempt %d: %v", i+1, gotFixed[i])
		}
		if gotBackoff[i] != wantBackoff[i] {
			t.Errorf("backoff, attempt %d: %v, want %v", i+1, gotBackoff[i], wantBackoff[i])
		}
	}
	jittered := model.Program{Retry: 200 * ms, Backoff: 1600 * ms, Jitter: true}
	a, b := model.JitterSource("C"), model.JitterSource("C")
	varied := false
	for attempt := 1; attempt <= 50; attempt++ {
		full := backoff.RetryWait(attempt, nil)
		x, y := jittered.RetryWait(attempt, a), jittered.RetryWait(attempt, b)
		if x != y {
			t.Fatalf("attempt %d: two draws from C's sequence differ: %v, %v", attempt, x, y)
		}
		if x < full/2 || x > full || x%ms != 0 {
			t.Errorf("attempt %d: jittered wait %v outside [%v, %v] in whole ms", attempt, x, full/2, full)
		}
		varied = varied || x != full
	}
	if !varied {
		t.Error("jitter never changed a wait")
	}
	if model.JitterSource("C").Int64() == model.JitterSource("D").Int64() {
		t.Error("C and D draw the same sequence")
	}
}

// Seconds are written exactly, as a person would.
func TestSecs(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 30 * time.Second: "30s", 500 * time.Millisecond: "0.5s",
		7262 * time.Millisecond: "7.262s", -3302 * time.Millisecond: "-3.302s", 1500 * time.Microsecond: "0.0015s",
	} {
		if got := narrate.Secs(d); got != want {
			t.Errorf("Secs(%v) = %q, want %q", d, got, want)
		}
	}
}
