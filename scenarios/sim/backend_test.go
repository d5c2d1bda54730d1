package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The engine does not talk to real servers itself: a target without a
// backend for its servers is refused before anything runs, and nothing is
// dialled.
func TestTargetWithoutBackend(t *testing.T) {
	target := &Target{Nodes: []*redis.Options{{Addr: "127.0.0.1:1"}}, Prefix: "lockstep:test:", Second: 30 * time.Millisecond}
	_, err := RunOn(context.Background(), target, Setup{}, func(tl *Timeline) { tl.RunToEnd() }, impl(t, "set-nx-ex"))
	if !errors.Is(err, ErrNoBackend) {
		t.Fatalf("err = %v, want ErrNoBackend", err)
	}
}

// Sub keeps the target's backend: a run among several of one command
// reaches the same servers the same way.
func TestSubKeepsTheBackend(t *testing.T) {
	called := 0
	target := &Target{NewBackend: func(*RealRun, *redis.Options) Backend { called++; return newMemBackend() }}
	sub := target.Sub("1:")
	if sub.NewBackend == nil {
		t.Fatal("Sub dropped NewBackend")
	}
	sub.NewBackend(nil, nil).Close()
	if called != 1 {
		t.Errorf("the sub-target's NewBackend is not the target's (%d calls)", called)
	}
}
