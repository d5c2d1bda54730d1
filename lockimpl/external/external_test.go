package external

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	text "github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
)

func TestPyRedisLockTrace(t *testing.T) {
	if _, err := python(); err != nil {
		t.Skip(err)
	}
	s, err := scenarios.Lookup("setnx-no-ex")
	if err != nil {
		t.Fatal(err)
	}
	info := lockimpl.Info{Name: "py-redis-lock", Nodes: 1, New: Spec{Name: "py-redis-lock", Runtime: "python", Adapter: "python/adapters/redis_py_lock.py"}.Maker()}
	tr, err := s.Run(info)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := text.Timeline(&b, tr, "en"); err != nil {
		t.Fatal(err)
	}
	t.Log(b.String())
}
