package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"

	"github.com/redis/go-redis/v9"
)

// The engine does not talk to real servers itself: a target without a
// backend for its servers is refused before anything runs, and nothing is
// dialled.
func TestTargetWithoutBackend(t *testing.T) {
	target := &backend.Target{Nodes: []*redis.Options{{Addr: "127.0.0.1:1"}}, Prefix: "lockstep:test:", Second: 30 * time.Millisecond}
	_, err := RunOn(context.Background(), target, model.Setup{}, func(tl *Timeline) { tl.RunToEnd() }, impl(t, "set-nx-ex"))
	if !errors.Is(err, backend.ErrNoBackend) {
		t.Fatalf("err = %v, want ErrNoBackend", err)
	}
}
