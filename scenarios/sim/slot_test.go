package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// The slots are Redis's: these are CLUSTER KEYSLOT's answers from
// redis-server 7 in cluster mode, hash tags and their edge cases included
// (an empty tag hashes the whole key; the first "{" and the first "}"
// after it bound the tag).
func TestHashSlotIsRedisClusters(t *testing.T) {
	for key, want := range map[string]int{
		"foo": 12182, "bar": 5061, "hello": 866, "somekey": 11058, "123456789": 12739,
		"{user1000}.following": 3443, "foo{}{bar}": 8363, "foo{{bar}}zap": 4015,
		"foo{bar}{zap}": 5061, "{}": 15257,
		"lock:product:1001": 3533, "lock:product:1001:fence": 6369, "{lock:product:1001}:fence": 3533,
	} {
		if got := HashSlot(key); got != want {
			t.Errorf("HashSlot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestSlotRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		inScript bool
		want     string
	}{
		{"one key", []string{"SET", "lock:product:1001", "A#1"}, false, ""},
		{"a script's keys across slots", []string{"EVAL", "return 1", "2", "lock:product:1001", "lock:product:1001:fence"}, false, crossSlot},
		{"a script's keys under one hash tag", []string{"EVALSHA", "abc", "2", "lock:product:1001", "{lock:product:1001}:fence"}, false, ""},
		{"DEL of two slots", []string{"DEL", "a", "b"}, false, crossSlot},
		{"a command with no key", []string{"PING"}, false, ""},
	} {
		r := &slotRule{script: -1}
		if got := r.check(tc.args, tc.inScript); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// A script that declared one key and touches another slot inside.
	r := &slotRule{script: -1}
	if got := r.check([]string{"EVAL", "…", "1", "lock:product:1001"}, false); got != "" {
		t.Fatalf("the script itself: %q", got)
	}
	if got := r.check([]string{"INCR", "{lock:product:1001}:fence"}, true); got != "" {
		t.Errorf("a key of the declared slot inside the script: %q", got)
	}
	if got := r.check([]string{"INCR", "lock:product:1001:fence"}, true); got != scriptCrossSlot {
		t.Errorf("a key of another slot inside the script: %q, want %q", got, scriptCrossSlot)
	}
}

// On a world whose setup says Cluster, the untagged fencing counter's
// acquire is refused with CROSSSLOT on every attempt and counts as the
// lesson's (liveness, not "no verdict"); the tagged one runs; without
// Cluster both run.
func TestClusterRefusesTheUntaggedCounter(t *testing.T) {
	run := func(impl string, cluster bool) (*trace.Trace, error) {
		in, err := lockimpl.Lookup(impl)
		if err != nil {
			t.Fatal(err)
		}
		setup := Setup{Cluster: cluster, Horizon: 61 * time.Second}
		return Run(setup, func(tl *Timeline) {
			tl.Client("A", Program{Work: 5 * time.Second})
			tl.Client("B", Program{Start: time.Second, Retry: time.Second, Work: 5 * time.Second})
			tl.RunToEnd()
		}, in)
	}
	tr, err := run("fenced-no-tag", true)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, e := range tr.Events {
		if strings.Contains(e.Reply, "CROSSSLOT Keys in request don't hash to the same slot") {
			refused++
		}
	}
	if refused == 0 || !strings.Contains(strings.Join(tr.Broken(), " "), "liveness") {
		t.Errorf("fenced-no-tag on a cluster: %d CROSSSLOT replies, broken %v; want refusals and liveness", refused, tr.Broken())
	}
	for _, c := range []struct {
		impl    string
		cluster bool
	}{{"fenced", true}, {"fenced-no-tag", false}} {
		tr, err := run(c.impl, c.cluster)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Broken()) != 0 {
			t.Errorf("%s (cluster %v) broke %v", c.impl, c.cluster, tr.Broken())
		}
	}
}
