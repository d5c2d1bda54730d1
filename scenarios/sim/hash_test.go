package sim

import (
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// Hash renames owner tokens, and only them: what a command writes or names
// as the lock key's owner, never a number (a TTL, a hold count, a fencing
// counter), never an option word, never an argument of a command on another
// key.
func TestHashTokenRule(t *testing.T) {
	const key = "lock:product:1001"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"set", key, "6f1c-uuid", "nx", "px", "30000"}, []string{"6f1c-uuid", "30000"}},
		{[]string{"evalsha", "1a2b3c", "2", key, "{" + key + "}:fence", "6f1c-uuid", "30000"}, []string{"6f1c-uuid", "30000"}},
		{[]string{"eval", "body", "1", "other", "6f1c-uuid"}, nil},
		{[]string{"eval", "body", "9", key}, nil},
		{[]string{"hincrby", key, "6f1c-uuid", "1"}, []string{"6f1c-uuid", "1"}},
		{[]string{"get", key}, nil},
		{[]string{"incr", "{" + key + "}:fence"}, nil},
	} {
		if got := model.LockArgs(tc.args, key); !slices.Equal(got, tc.want) {
			t.Errorf("lockArgs(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	for v, num := range map[string]bool{"3": true, "-1": true, "1700000000.25": true, "A#1": false, "6f1c-uuid": false, "": false} {
		if model.IsNumber(v) != num {
			t.Errorf("isNumber(%q) = %v", v, !num)
		}
	}
}
