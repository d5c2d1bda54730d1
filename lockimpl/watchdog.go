package lockimpl

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultMaxRenewals caps a watchdog: after this many successful renewals it
// stops and lets the lease run out. Without a cap, a live process whose business code
// is stuck would keep the lock forever (看门狗无限续期).
const DefaultMaxRenewals = 10

// watchdog renews a lease every TTL/3 (看门狗续期) with the compare-and-PEXPIRE
// script, until it is stopped, the renewal cap is reached, or a renewal finds
// the lock gone — then Lost is closed.
type watchdog struct {
	cancel context.CancelFunc
	done   chan struct{}
	lost   chan struct{}
}

// startWatchdog starts renewing token's lease on node 0 of env with the
// compare-and-PEXPIRE script.
func startWatchdog(ctx context.Context, env Env, token string, maxRenewals int) *watchdog {
	return startRenewing(ctx, env, token, maxRenewals, renew)
}

// startRenewing starts a watchdog that renews with renew.
func startRenewing(ctx context.Context, env Env, token string, maxRenewals int,
	renew func(ctx context.Context, env Env, token string) (bool, error)) *watchdog {
	// The watchdog outlives the acquire call, so it must not inherit its
	// cancellation; it keeps the context's values.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w := &watchdog{cancel: cancel, done: make(chan struct{}), lost: make(chan struct{})}
	every := env.TTL / 3
	env.goroutine(ctx, "watchdog", func(ctx context.Context) {
		defer close(w.done)
		for renewed := 0; maxRenewals <= 0 || renewed < maxRenewals; {
			if env.Clock.Sleep(ctx, every) != nil {
				return
			}
			ok, err := renew(ctx, env, token)
			switch {
			case err != nil && (ctx.Err() != nil || errors.Is(err, redis.ErrClosed)):
				return
			case err != nil:
				// A failed renewal (the connection dropped, say) is retried
				// at the next tick; the lease may still be there.
			case !ok:
				close(w.lost)
				return
			default:
				renewed++
			}
		}
		// At the cap the watchdog stops; the lease runs out within a TTL.
	})
	return w
}

// renew runs the compare-and-PEXPIRE script on node 0.
func renew(ctx context.Context, env Env, token string) (bool, error) {
	n, err := renewScript.Eval(ctx, env.Nodes[0], []string{env.Key}, token, ttlMillis(env.TTL)).Int64()
	return n == 1, err
}

// stop ends the watchdog and waits for its goroutine to finish.
func (w *watchdog) stop() {
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
}

// neverLost is what Lost returns before the first acquire: never closed.
var neverLost = make(chan struct{})

func (w *watchdog) lostChan() <-chan struct{} {
	if w == nil {
		return neverLost
	}
	return w.lost
}

// ttlMillis formats a duration as whole milliseconds for PX and PEXPIRE.
func ttlMillis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
