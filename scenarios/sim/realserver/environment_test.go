package realserver

import (
	"errors"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// redisErr is an error reply from a server, as go-redis gives one.
type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}

// An error reply that is the environment's, and not the lesson's, is named
// by its class or its prefix: "ERR DB index is out of range" is a missing
// database (the prefix was once written with its "ERR ", which
// redis.HasErrorPrefix reads past, and never matched). NOPERM is the
// environment's only when the locks run as the user's own user (NoACL);
// with the run's ACL user it is the guard refusing the lock.
func TestEnvironmentError(t *testing.T) {
	guarded := &server{run: &backend.RealRun{Target: &backend.Target{}}}
	why, bad := guarded.EnvironmentError(redisErr("NOPERM this user has no permissions to run the 'flushall' command"))
	if bad {
		t.Errorf("a guarded run's NOPERM is the environment's: %q", why)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{redisErr("ERR DB index is out of range"), "the server has no such database"},
		{redisErr("ERR invalid DB index"), "the server has no such database"},
		{redisErr("WRONGPASS invalid username-password pair or user is disabled."), "the server refused the credentials"},
		{redisErr("NOPERM this user has no permissions to run the 'eval' command"), "the user lacks a permission the lock needs"},
		{redisErr("LOADING Redis is loading the dataset in memory"), "the server cannot serve the run"},
		{redisErr("WRONGTYPE Operation against a key holding the wrong kind of value"), ""},
		{errors.New("ERR DB index is out of range, said no server"), ""},
	} {
		why, bad := (&server{run: &backend.RealRun{Target: &backend.Target{NoACL: true}}}).EnvironmentError(tc.err)
		if why != tc.want || bad != (tc.want != "") {
			t.Errorf("EnvironmentError(%q) = %q, %v; want %q", tc.err, why, bad, tc.want)
		}
	}
}
