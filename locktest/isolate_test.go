package locktest

import (
	"context"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// panicky is plainDEL that, for a third client (C), starts a goroutine of
// its own — a plain go statement, not Env.Go — that panics.
type panicky struct{ plainDEL }

func (l panicky) TryAcquire(ctx context.Context) (bool, error) {
	ok, err := l.plainDEL.TryAcquire(ctx)
	if tok, _ := l.env.Nodes[0].Get(ctx, l.env.Key).Result(); strings.HasPrefix(tok, "C#") {
		done := make(chan struct{})
		go func() {
			defer close(done)
			panic("a goroutine of the lock's own panics")
		}()
		<-done
	}
	return ok, err
}

var panickyInfo = lockimpl.Info{Name: "panicky", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return panicky{plainDEL{e}} }}

// Issue #26 item 13: a panic in a goroutine the lock started with a go
// statement is the error of the lesson it happened in, as one in Env.Go's
// goroutines is — it used to kill the test binary — and the other lessons
// still run: Run's child process dies, another goes on after it.
func TestGoroutinePanicIsTheLessonsError(t *testing.T) {
	var lessons []scenarios.Scenario
	for _, id := range []string{"setnx-no-ex", "oversell", "gc-pause"} {
		s, err := scenarios.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		lessons = append(lessons, s)
	}
	opts := []Option{Lessons(lessons...), NoSearch(), TraceDir(t.TempDir())}
	if _, child := childSpec(); child {
		Run(t, panickyInfo, opts...) // the child's part: the lessons
		return
	}
	rep, err := isolated(t, panickyInfo)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := rep.Problems, rep.err()
	if err == nil || !strings.Contains(err.Error(), "oversell × panicky could not run: the process died in it") ||
		!strings.Contains(err.Error(), "panic: a goroutine of the lock's own panics") {
		t.Errorf("err = %v; want oversell's error, with the panic", err)
	}
	if strings.Contains(err.Error(), "gc-pause") || strings.Contains(err.Error(), "setnx-no-ex") {
		t.Errorf("err = %v; only oversell should have failed", err)
	}
	if !containsProblem(problems, "gc-pause", "mutex") {
		t.Errorf("gc-pause, after the lesson that died, did not run: %v", problems)
	}
}
