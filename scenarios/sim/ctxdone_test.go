package sim

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// A run's context is the caller's: its Done channel, first used by the
// run's scheduler inside the world's bubble, is still one the caller can
// wait on (the TUI's live run selects on it). Made inside the bubble, a
// select on it from outside was fatal.
func TestRunContextIsTheCallers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &backend.Pacer{Next: func(ctx context.Context, _, _ string) error {
		// As the TUI's pacer waits: on the run's context, among others.
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return nil
		}
	}}
	if _, err := RunOn(backend.WithPacer(ctx, p), nil, model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{})
		tl.RunToEnd()
	}, impl(t, "uuid-lua")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
		t.Fatal("done before cancel")
	case <-time.After(time.Millisecond):
	}
}

// A live run waits for its presenter as long as the presenter likes: time
// spent in the pacer is not a stall (it was, once the stall timer came to
// count a whole call on the world's goroutine).
func TestPacerWaitIsNoStall(t *testing.T) {
	// The presenter waits three stall timeouts; outside the pacer, the run
	// has a stall timeout to make progress, with room for a loaded machine
	// (CI's race step met a false stall at 50ms).
	shortStall(t, 300*time.Millisecond)
	release := make(chan struct{})
	go func() {
		time.Sleep(900 * time.Millisecond)
		close(release)
	}()
	waited := false
	p := &backend.Pacer{Next: func(context.Context, string, string) error {
		if !waited {
			waited = true
			<-release // the presenter takes a while before the first step
		}
		return nil
	}}
	if _, err := RunOn(backend.WithPacer(context.Background(), p), nil, model.Setup{}, func(tl *Timeline) {
		tl.Client("A", model.Program{})
		tl.RunToEnd()
	}, impl(t, "uuid-lua")); err != nil {
		t.Fatal(err)
	}
}
