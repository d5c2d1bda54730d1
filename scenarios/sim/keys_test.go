package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/internal/hostile"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
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
			_, err := Run(model.Setup{}, func(tl *Timeline) {
				tl.Client("A", model.Program{})
				tl.RunToEnd()
			}, info)
			var refused *command.RefusedError
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
