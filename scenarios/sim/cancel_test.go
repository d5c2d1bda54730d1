package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A run stops soon after its context is cancelled, on embedded servers as
// on real ones: Ctrl-C and SIGTERM went unheeded while a long lesson ran
// on embedded servers (#26). Here B retries every second for an hour
// while A holds the lock: thousands of events, of which the run makes
// only the few after the cancellation that the step in progress had
// left. The pacer's Event is how the test sees the run's events as they
// come.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const at = 100
	events := 0
	ctx = backend.WithPacer(ctx, &backend.Pacer{Event: func(_ trace.Trace, e trace.Event) {
		events++
		if events == at {
			cancel()
		}
	}})
	script := func(t *Timeline) {
		t.Client("A", model.Program{Work: time.Hour})
		t.Client("B", model.Program{Start: time.Second, Retry: time.Second})
		t.RunToEnd()
	}
	tr, err := RunOn(ctx, nil, model.Setup{TTL: time.Hour, Horizon: time.Hour}, script, impl(t, "uuid-lua"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunOn: a trace of %d events, error %v; want context.Canceled", len(trEvents(tr)), err)
	}
	if events > at+10 {
		t.Errorf("%d events, %d of them after the cancellation", events, events-at)
	}
}

func trEvents(tr *trace.Trace) []trace.Event {
	if tr == nil {
		return nil
	}
	return tr.Events
}
