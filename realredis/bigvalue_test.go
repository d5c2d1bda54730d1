package realredis_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/bigvalue"
	"github.com/lockstep-sim/lockstep/internal/redistest"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
)

// A lock that stores 32 MB under its key, on a real server (#37 item 3):
// the run took 10.1 GB, every snapshot's reading downloading the value
// and keeping a copy of it, and with 512 MB a reading outlasted its
// bound and the run ended in a false "could not be reached". The
// observer now reads no more of a string than a snapshot keeps: the
// server sends the lock's own GETs and little else, and the trace keeps
// a bounded part of the value, as embedded.
func TestRealBigValueIsNotDownloaded(t *testing.T) {
	const size = 32 << 20
	srv := redistest.Start(t)
	target, err := realredis.Connect(t.Context(), realredis.Config{Addrs: []string{srv.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	sent := func() int64 {
		info, err := admin.InfoMap(t.Context(), "stats").Result()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		fmt.Sscan(info["Stats"]["total_net_output_bytes"], &n)
		return n
	}
	s, _ := scenarios.Lookup("get-then-del")
	before := sent()
	tr, err := s.RunOn(t.Context(), bigvalue.Info(size), target)
	if err != nil {
		t.Fatal(err)
	}
	// The releases' GETs of A, B and C: a value each.
	if n := sent() - before; n > 4*size {
		t.Errorf("the server sent %d MB in the run, %.0f values of 32 MB; the lock's GETs are 3", n>>20, float64(n)/size)
	}
	var kept int
	for _, e := range tr.Events {
		for _, srv := range e.Snap.Servers {
			for _, k := range srv.Keys {
				if strings.Contains(k.Value, "x…(+") {
					kept++
				}
				if len(k.Value) > command.MaxValue+32 {
					t.Fatalf("step %d keeps %d bytes of %s's value", e.Step, len(k.Value), k.Key)
				}
			}
		}
		if data, _ := json.Marshal(e); len(data) > 3*command.MaxArg {
			t.Errorf("step %d keeps %d bytes of JSON: %.200s…", e.Step, len(data), data)
		}
	}
	if kept == 0 {
		t.Error("no snapshot shows the lock's value")
	}
}
