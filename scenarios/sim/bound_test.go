package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/bigvalue"
)

// marker is what a cut text ends in for n bytes left out.
func marker(n int) string { return fmt.Sprintf("…(+%d bytes)", n) }

// A lock may store any value under its key; a trace keeps a bounded part
// of it (#37 item 3: a 32 MB value took 10.1 GB on a real server, 0.55 GB
// embedded). Here a value of 4 MiB: each snapshot keeps its first
// MaxValue bytes and a marker, the same string in every snapshot while
// the value stays, and each command and reply at most MaxArg bytes; the
// replica still gets the whole value, and the run breaks what
// uuid-get-del's does in the same timeline.
func TestBigValueIsBoundedInTheTrace(t *testing.T) {
	const size, k = 4 << 20, "lock:product:1001"
	full := bigvalue.Value("A#1", size)
	var replicated string
	script := func(tl *Timeline) {
		tl.Client("A", Program{Work: 5 * time.Second})
		tl.Client("B", Program{Start: time.Second, Retry: time.Second, Work: time.Second})
		tl.RunUntil(3 * time.Second)
		replicated, _ = tl.w.fleet.servers[1].b.(*memBackend).m.Get(k)
		tl.RunToEnd()
	}
	setup := Setup{Replica: true, Lag: time.Second}
	tr, err := Run(setup, script, bigvalue.Info(size))
	if err != nil {
		t.Fatal(err)
	}
	if replicated != full {
		t.Errorf("the replica got %d bytes of A's value, want all %d", len(replicated), len(full))
	}
	want := full[:MaxValue] + marker(len(full)-MaxValue)
	var kept []string
	for _, e := range tr.Events {
		if v, ok := key(e.Snap, "redis-1", k); ok && strings.HasPrefix(v.Value, "A#1:") {
			kept = append(kept, v.Value)
		}
		if data, _ := json.Marshal(e); len(data) > 3*MaxArg {
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
	if w := fmt.Sprintf("%q", full[:MaxArg]+marker(len(full)-MaxArg)); get.Reply != w {
		t.Errorf("A's GET replies %.300q; want %.300q", get.Reply, w)
	}
	ref := run(t, setup, "uuid-get-del", script)
	if got, w := tr.Broken(), ref.Broken(); !slices.Equal(got, w) {
		t.Errorf("the big value breaks %v; uuid-get-del %v", got, w)
	}
}

// Cut keeps a text that fits and cuts one that does not before a
// character it would split, counting the bytes it leaves out; keptArgs
// cuts a command's long arguments only when they add up to more than
// MaxArg, and leaves out, counted, those past it.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"A#1", 3, "A#1"},
		{"A#12", 3, "A#1…(+1 bytes)"},
		{"锁锁", 4, "锁…(+3 bytes)"}, // a character is 3 bytes
		{"锁锁", 3, "锁…(+3 bytes)"},
		{"\xff\xff\xff\xff\xff", 2, "\xff\xff…(+3 bytes)"},
	} {
		if got := Cut(tc.s, tc.max); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
	// A real server's reading: the head GETRANGE sent, the size STRLEN
	// said, which may disagree when the value changed in between.
	for _, tc := range []struct {
		head string
		size int
		want string
	}{{"abc", 3, "abc"}, {"abc", 10, "abc…(+7 bytes)"}, {"abcdef", 2, "abcd…(+2 bytes)"}} {
		if got := CutHead(tc.head, tc.size, 4); got != tc.want {
			t.Errorf("CutHead(%q, %d, 4) = %q, want %q", tc.head, tc.size, got, tc.want)
		}
	}
	big := strings.Repeat("x", 1<<20)
	if c := Cut(big, MaxValue); unsafe.StringData(c) == unsafe.StringData(big) {
		t.Error("Cut returns a part of the text it cut: it keeps all of it in memory")
	}
	small := []any{"set", "k", "A#1", "px", int64(30000)}
	if got := keptArgs(small); !slices.Equal(got, []string{"set", "k", "A#1", "px", "30000"}) {
		t.Errorf("keptArgs(%v) = %q", small, got)
	}
	script := strings.Repeat("-", 300)
	if got := keptArgs([]any{"eval", script, "1", "k"}); got[1] != script {
		t.Errorf("keptArgs cut a script of 300 bytes from arguments of 308: %q", got[1])
	}
	if got := keptArgs([]any{"eval", script, "1", []byte(big)}); got[1] != Cut(script, MaxValue) || got[3] != Cut(big, MaxValue) {
		t.Errorf("keptArgs kept %d and %d bytes of arguments of 300 and 1 MiB", len(got[1]), len(got[3]))
	}
	many := []any{"del"}
	for range 1000 {
		many = append(many, big[:10])
	}
	got := keptArgs(many)
	if n := len(strings.Join(got, "")); n > MaxArg+20 || got[len(got)-1] != fmt.Sprintf("…(+%d args)", 1001-len(got)+1) {
		t.Errorf("keptArgs kept %d bytes of 1001 arguments, ending %q", n, got[len(got)-1])
	}
}
