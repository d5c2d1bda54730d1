package command

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A Lua script shows by name, not whole: the catalogue's by their first
// comment line, a library's by "script" and a short SHA-1 that its EVAL and
// its EVALSHA share.
func TestScriptsShowByName(t *testing.T) {
	ctx := context.Background()
	body := "\nif redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n\treturn redis.call(\"DEL\", KEYS[1])\nend\nreturn 0"
	sha := redis.NewScript(body).Hash()
	for _, tc := range []struct {
		cmd  redis.Cmder
		want string
	}{
		{redis.NewCmd(ctx, "eval", "-- release: delete the lock only if it holds our token\nreturn 1", 1, "lock", "A#1"), "EVAL <release> 1 lock A#1"},
		{redis.NewCmd(ctx, "eval", "--   my unlock\nreturn 1", 1, "lock"), "EVAL <my unlock> 1 lock"},
		{redis.NewCmd(ctx, "eval", body, 1, "lock", "A#1"), "EVAL <script " + sha[:8] + "> 1 lock A#1"},
		{redis.NewCmd(ctx, "evalsha", sha, 1, "lock", "A#1"), "EVALSHA <script " + sha[:8] + "> 1 lock A#1"},
		{redis.NewCmd(ctx, "set", "lock", "-- not a script", "nx"), `SET lock "-- not a script" NX`},
	} {
		if got := Format(tc.cmd); got != tc.want {
			t.Errorf("Format = %q, want %q", got, tc.want)
		}
	}
}
