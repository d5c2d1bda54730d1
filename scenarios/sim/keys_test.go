package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/hostile"
)

// A lock that reaches beyond its own keys is stopped by the server, as the
// run's ACL user is on a real one: FLUSHALL and FLUSHDB for their command,
// RENAME and EVAL for a foreign key they name, a script for a key its body
// writes without declaring it (which no check of the command's arguments
// can see), and a log-in as another user (AUTH, HELLO … AUTH, RESET), which
// the gate refuses (#37). The run fails as the lock's own, with the
// server's words.
func TestGuardRefusesWhatIsNotTheLocks(t *testing.T) {
	want := map[string]string{
		"hostile-flushall":  "NOPERM this user has no permissions to run the 'flushall' command",
		"hostile-flushdb":   "NOPERM this user has no permissions to run the 'flushdb' command",
		"hostile-lua-body":  "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: ",
		"hostile-rename":    "NOPERM this user has no permissions to access one of the keys",
		"hostile-eval-keys": "NOPERM this user has no permissions to access one of the keys",
		// The gate's refusal: Redis itself lets every user log in again.
		"hostile-auth-default":  "NOPERM lockstep refuses 'auth' from lock code",
		"hostile-hello-auth":    "NOPERM lockstep refuses 'hello' from lock code",
		"hostile-pipeline-auth": "NOPERM lockstep refuses 'auth' from lock code",
		"hostile-reset":         "NOPERM lockstep refuses 'reset' from lock code",
	}
	for _, info := range hostile.Locks() {
		t.Run(info.Name, func(t *testing.T) {
			_, err := Run(Setup{}, func(tl *Timeline) {
				tl.Client("A", Program{})
				tl.RunToEnd()
			}, info)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("err = %v, want the guard's refusal", err)
			}
			if refused.Impl != info.Name || refused.Actor != "A" || !strings.Contains(err.Error(), want[info.Name]) {
				t.Errorf("err = %v, want %s's refusal: %q", err, info.Name, want[info.Name])
			}
			// In Redis's words, embedded too: not miniredis's compile
			// error with gopher-lua's traceback (#38, item 9).
			if strings.Contains(err.Error(), "stack traceback") || strings.Contains(err.Error(), "Error compiling script") {
				t.Errorf("err = %v: miniredis's words, not Redis's", err)
			}
		})
	}
}

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
		if got := refusal(tc.args, "lock", tc.inScript); got != tc.want {
			t.Errorf("refusal(%q, script %v) = %q, want %q", tc.args, tc.inScript, got, tc.want)
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
