package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// A paced run asks before every command, in order, and reports every event
// as it is recorded; its trace is the unpaced run's.
func TestPacer(t *testing.T) {
	script := func(tl *Timeline) {
		tl.Client("A", model.Program{Work: time.Second})
		tl.Client("B", model.Program{Start: 500 * time.Millisecond, Retry: time.Second, Work: time.Second})
		tl.RunToEnd()
	}
	plain := run(t, model.Setup{}, "uuid-lua", script)
	var asked []string
	var events int
	p := &backend.Pacer{
		Event: func(h trace.Trace, _ trace.Event) {
			if h.Impl == "uuid-lua" && len(h.Clients) == 2 && len(h.Events) == 0 {
				events++
			}
		},
		Next: func(_ context.Context, actor, cmd string) error {
			asked = append(asked, actor+" "+cmd)
			return nil
		},
	}
	paced, err := RunOn(backend.WithPacer(context.Background(), p), nil, model.Setup{}, script, impl(t, "uuid-lua"))
	if err != nil {
		t.Fatal(err)
	}
	if events != len(paced.Events) {
		t.Errorf("the pacer saw %d events of %d", events, len(paced.Events))
	}
	var want []string
	for _, c := range commands(plain) {
		f := strings.Fields(c) // "T actor server command… → reply"
		want = append(want, f[1]+" "+strings.Join(f[3:slicesIndex(f, "→")], " "))
	}
	equal(t, asked, want)
	if a, b := commands(plain), commands(paced); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("pacing changed the run:\n%s\nvs\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	// An error from Next ends the run with it.
	stop := errors.New("the class is over")
	_, err = RunOn(backend.WithPacer(context.Background(), &backend.Pacer{Next: func(context.Context, string, string) error { return stop }}),
		nil, model.Setup{}, script, impl(t, "uuid-lua"))
	if !errors.Is(err, stop) {
		t.Errorf("err = %v, want %v", err, stop)
	}
}

func slicesIndex(f []string, s string) int {
	for i, x := range f {
		if x == s {
			return i
		}
	}
	return len(f)
}
