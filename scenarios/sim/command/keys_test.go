package command

import (
	"strings"
	"testing"
)

// The guard lets through what locks do: every command of lockCommands on
// the lock's own keys, and refuses the same command on another key.
func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		inScript bool
		want     string
	}{
		{[]string{"SET", "lock", "A#1", "NX", "PX", "30000"}, false, ""},
		{[]string{"set", "lock:fence", "1"}, false, ""},
		{[]string{"INCR", "{lock}:fence"}, false, ""},
		{[]string{"EVAL", "return 1", "2", "lock", "{lock}x", "arg"}, false, ""},
		{[]string{"EVAL", "return 1", "1", "user:42"}, false, noPermKey},
		{[]string{"RENAME", "lock", "user:42"}, false, noPermKey},
		{[]string{"DEL", "lock", "lockx"}, false, noPermKey},
		{[]string{"MSET", "lock", "user:42", "user:42", "v"}, false, noPermKey},
		{[]string{"SCRIPT", "LOAD", "return 1"}, false, ""},
		{[]string{"SCRIPT", "FLUSH"}, false, "NOPERM this user has no permissions to run the 'script|flush' command"},
		{[]string{"KEYS", "*"}, false, "NOPERM this user has no permissions to run the 'keys' command"},
		{[]string{"FLUSHALL"}, true, scriptNoPermCommand},
		{[]string{"GET", "other"}, true, scriptNoPermKey},
		{[]string{"HELLO", "2"}, false, ""},
	} {
		if got := refusal(tc.args, "lock", nil, tc.inScript); got != tc.want {
			t.Errorf("refusal(%q, script %v) = %q, want %q", tc.args, tc.inScript, got, tc.want)
		}
	}
}

// A key every lock of a library shares passes beside the lock's own, in
// one command too (simple-redis-mutex's release script names both); a key
// of neither is still refused.
func TestRefusalOfSharedKeys(t *testing.T) {
	owns, shared := []string{"lock"}, []string{"@lib:counter"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"INCR", "@lib:counter"}, ""},
		{[]string{"EVAL", "return 1", "2", "lock", "@lib:counter"}, ""},
		{[]string{"EVAL", "return 1", "2", "lock", "other"}, noPermKey},
		{[]string{"PUBLISH", "@lib:counter", "released"}, ""},
	} {
		if got := RefusalOf(tc.args, owns, shared, false); got != tc.want {
			t.Errorf("RefusalOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
		if got := RefusalOf(tc.args, owns, nil, false); tc.args[0] == "INCR" && got != noPermKey {
			t.Errorf("without the shared key, RefusalOf(%q) = %q, want %q", tc.args, got, noPermKey)
		}
	}
}

// KeyPatterns escape what would be a glob in Redis's ACL patterns.
func TestKeyPatterns(t *testing.T) {
	got := strings.Join(KeyPatterns("lockstep:ab:lock*[1]"), " ")
	want := `lockstep:ab:lock\*\[1\] lockstep:ab:lock\*\[1\]:* {lockstep:ab:lock\*\[1\]}*`
	if got != want {
		t.Errorf("KeyPatterns = %s, want %s", got, want)
	}
}
