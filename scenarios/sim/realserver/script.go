package realserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// defaultBusyThreshold is Redis's busy-reply-threshold (lua-time-limit
// before Redis 7) when the server does not say: how long a script runs
// before the server answers BUSY to others and takes SCRIPT KILL.
const defaultBusyThreshold = 5 * time.Second

// readBusyThreshold reads the server's busy threshold before the run: once
// a script keeps the server busy, CONFIG GET would be answered BUSY. A
// user who may not run CONFIG gets Redis's default.
func (b *server) readBusyThreshold() {
	b.busy = defaultBusyThreshold
	ctx, cancel := b.ioContext()
	defer cancel()
	for _, name := range []string{"busy-reply-threshold", "lua-time-limit"} {
		v, err := b.obs.ConfigGet(ctx, name).Result()
		if ms, perr := strconv.Atoi(v[name]); err == nil && perr == nil && ms > 0 {
			b.busy = time.Duration(ms) * time.Millisecond
			return
		}
	}
}

// StopScript stops a script that keeps the server busy (backend.ScriptStopper):
// SCRIPT KILL, or FUNCTION KILL for a function, on a connection of its
// own, waiting past the server's busy threshold, before which Redis reads
// nothing while a script runs.
func (b *server) StopScript() (string, error) {
	busy := b.busy
	if busy == 0 {
		busy = defaultBusyThreshold // Guard did not read it
	}
	wait := busy + ioTimeout
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	o := observerOptions(b.opts, wait)
	o.Protocol = 2
	c := redis.NewClient(o)
	defer c.Close()
	for _, kill := range [][]any{{"SCRIPT", "KILL"}, {"FUNCTION", "KILL"}} {
		err := c.Do(ctx, kill...).Err()
		how := fmt.Sprintf("%s %s after the server's busy threshold of %s", kill[0], kill[1], busy)
		switch {
		case err == nil:
			return how, nil
		case redis.HasErrorPrefix(err, "NOTBUSY"):
			continue // nothing of this kind runs
		case redis.HasErrorPrefix(err, "UNKILLABLE"):
			return "", fmt.Errorf("a script wrote before it ran away, so Redis will not kill it: the server answers BUSY until SHUTDOWN NOSAVE: %w", err)
		case strings.Contains(err.Error(), "unknown command") || redis.HasErrorPrefix(err, "ERR unknown subcommand"):
			continue // Redis before 7 has no FUNCTION
		default:
			return "", fmt.Errorf("%s %s: %w", kill[0], kill[1], err)
		}
	}
	return "", nil
}
