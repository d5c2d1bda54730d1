package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/bigvalue"
)

// marker is what a cut text ends in for n bytes left out.
func marker(n int) string { return fmt.Sprintf("…(+%d bytes)", n) }

// A lock may store any value under its key; a trace keeps a bounded part
// of it (#37 item 3: a 32 MB value took 10.1 GB on a real server, 0.55 GB
// embedded). Here a value of 4 MiB: each snapshot keeps its first
// command.MaxValue bytes and a marker, the same string in every snapshot
// while the value stays, and each command and reply at most
// command.MaxArg bytes; the replica still gets the whole value, and the
// run breaks what uuid-get-del's does in the same timeline.
func TestBigValueIsBoundedInTheTrace(t *testing.T) {
	const size, k = 4 << 20, "lock:product:1001"
	full := bigvalue.Value("A#1", size)
	var replicated string
	script := func(tl *Timeline) {
		tl.Client("A", model.Program{Work: 5 * time.Second})
		tl.Client("B", model.Program{Start: time.Second, Retry: time.Second, Work: time.Second})
		tl.RunUntil(3 * time.Second)
		replicated = tl.w.Fleet.Servers[1].B.(*backend.Embedded).Stored(k).Str
		tl.RunToEnd()
	}
	setup := model.Setup{Replica: true, Lag: time.Second}
	tr, err := Run(setup, script, bigvalue.Info(size))
	if err != nil {
		t.Fatal(err)
	}
	if replicated != full {
		t.Errorf("the replica got %d bytes of A's value, want all %d", len(replicated), len(full))
	}
	want := full[:command.MaxValue] + marker(len(full)-command.MaxValue)
	var kept []string
	for _, e := range tr.Events {
		if v, ok := key(e.Snap, "redis-1", k); ok && strings.HasPrefix(v.Value, "A#1:") {
			kept = append(kept, v.Value)
		}
		if data, _ := json.Marshal(e); len(data) > 3*command.MaxArg {
			t.Errorf("step %d keeps %d bytes of JSON: %.200s…", e.Step, len(data), data)
		}
	}
	if len(kept) < 5 || kept[0] != want {
		t.Fatalf("redis-1's lock in %d snapshots, the first %.300q; want %q", len(kept), kept[0], want)
	}
	for i, v := range kept {
		if unsafe.StringData(v) != unsafe.StringData(kept[0]) {
			t.Errorf("snapshot %d of A's lock holds a copy of its value; want the first one's", i)
		}
	}
	set := tr.Events[slices.IndexFunc(tr.Events, func(e trace.Event) bool { return e.Kind == trace.KindCommand })]
	if w := fmt.Sprintf("SET %s %q EX 30 NX", k, want); set.Command != w {
		t.Errorf("A's SET shows as %.300q; want %q", set.Command, w)
	}
	if w := []string{"set", k, want, "ex", "30", "nx"}; !slices.Equal(set.Args, w) {
		t.Errorf("A's SET keeps the arguments %.300q; want %.300q", set.Args, w)
	}
	get := tr.Events[slices.IndexFunc(tr.Events, func(e trace.Event) bool { return strings.HasPrefix(e.Command, "GET ") })]
	if w := fmt.Sprintf("%q", full[:command.MaxArg]+marker(len(full)-command.MaxArg)); get.Reply != w {
		t.Errorf("A's GET replies %.300q; want %.300q", get.Reply, w)
	}
	ref := run(t, setup, "uuid-get-del", script)
	if got, w := tr.Broken(), ref.Broken(); !slices.Equal(got, w) {
		t.Errorf("the big value breaks %v; uuid-get-del %v", got, w)
	}
}
