package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"

	"github.com/redis/go-redis/v9"
)

// Clients with keys of their own hold locks apart: under one coarse key the
// second waits for the first; under keys of their own both hold at once,
// each writes its own row, and nothing breaks.
func TestClientsWithKeysOfTheirOwn(t *testing.T) {
	script := func(a, b string) Script {
		return func(tl *Timeline) {
			tl.Client("A", model.Program{Work: 5 * time.Second, Key: a})
			tl.Client("B", model.Program{Start: 100 * time.Millisecond, Retry: time.Second, Work: 5 * time.Second, Key: b})
			tl.RunToEnd()
		}
	}
	for _, impl := range []string{"uuid-lua", "redlock"} {
		tr := run(t, model.Setup{}, impl, script("lock:orders", "lock:orders"))
		if got := brokenInvariants(tr); len(got) > 0 || !hasText(tr, "B now holds the lock (token B#1), after 6 attempts") {
			t.Errorf("%s, one coarse key: broken %v, or B did not wait for A:\n%s", impl, got, strings.Join(texts(tr), "\n"))
		}
		tr = run(t, model.Setup{}, impl, script("lock:order:8801", "lock:order:8802"))
		if got := brokenInvariants(tr); len(got) > 0 {
			t.Errorf("%s, keys of their own: broken %v", impl, got)
		}
		for _, want := range []string{"B now holds the lock (token B#1)\n", "A writes order:8801 = 99", "B writes order:8802 = 99"} {
			if !strings.Contains(strings.Join(texts(tr), "\n")+"\n", want) {
				t.Errorf("%s, keys of their own: no %q in\n%s", impl, want, strings.Join(texts(tr), "\n"))
			}
		}
	}
	// Without a lock the same two clients on one row lose an update, so
	// the rows above are apart.
	tr := run(t, model.Setup{}, "no-lock", script("lock:order:8801", "lock:order:8801"))
	if !slices.Contains(brokenInvariants(tr), invariant.Resource) {
		t.Errorf("no-lock on one row: broken %v, want resource", brokenInvariants(tr))
	}
}

// Liveness is judged per lock: B waits behind A's orphaned lock while C,
// alive, holds a lock of its own; C's does not keep B's from counting as
// orphaned.
func TestLivenessPerKey(t *testing.T) {
	tr := run(t, model.Setup{Horizon: 2 * time.Minute}, "setnx", func(tl *Timeline) {
		a := tl.Client("A", model.Program{Work: 5 * time.Second, Key: "lock:order:8801"})
		tl.Client("B", model.Program{Start: time.Second, Retry: 10 * time.Second, Work: time.Second, Key: "lock:order:8801"})
		tl.Client("C", model.Program{Work: 100 * time.Second, Key: "lock:order:8802"})
		tl.RunUntil(2 * time.Second)
		a.Crash()
		tl.RunToEnd()
	})
	if got := brokenInvariants(tr); !slices.Equal(got, []string{invariant.Liveness}) {
		t.Errorf("broken %v, want liveness alone", got)
	}
}

// A scenario whose clients take locks of their own runs on embedded servers
// only: the run's ACL user on a real server has the setup's key alone.
func TestClientKeysEmbeddedOnly(t *testing.T) {
	target := &backend.Target{Nodes: []*redis.Options{{Addr: "127.0.0.1:1"}}}
	_, err := RunOn(context.Background(), target, model.Setup{ClientKeys: true}, func(tl *Timeline) { tl.RunToEnd() }, impl(t, "uuid-lua"))
	if !errors.Is(err, model.ErrOwnKeyEmbedded) {
		t.Errorf("err = %v, want ErrOwnKeyEmbedded", err)
	}
}
