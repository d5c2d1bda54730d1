package backend

import (
	"testing"
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
