package realredis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/sentinel"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
)

// SentinelSecond is the least time scale of a run whose failover Sentinel
// decides: its detection and election take two seconds or more of real
// time (internal/sentinel's measurements), which must be a few scenario
// seconds, not a minute of them.
const SentinelSecond = 500 * time.Millisecond

// sentinelSetup bounds the setup of a run's watch: Monitor, the Sentinels
// finding the replica and each other (about 2 s: their hello period), the
// subscriptions.
const sentinelSetup = 10 * time.Second

// checkSentinels makes sure every address is a Sentinel, and that the run
// has what a Sentinel failover needs.
func checkSentinels(ctx context.Context, cfg Config) ([]*redis.Options, error) {
	if cfg.Replica == "" {
		return nil, errors.New("--sentinel decides the failover lessons' failover: it needs the replica it promotes, --replica ADDR --disposable")
	}
	var opts []*redis.Options
	for _, a := range cfg.Sentinels {
		o, err := Parse(a)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	g := sentinel.NewGroup(opts)
	defer g.Close()
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	if err := g.Check(ctx); err != nil {
		return nil, err
	}
	return opts, nil
}

// watchSentinels is backend.WatchSentinels on the Sentinels opts reach: they
// monitor a proxy in front of the primary under the run's own name, never
// the primary itself, so that no Sentinel ever reconfigures it (a resync
// would wipe it). Down closes the proxy.
func watchSentinels(opts []*redis.Options) backend.WatchSentinels {
	return func(run *backend.RealRun, name string, primary, replica *redis.Options, downAfter, timeout time.Duration) (backend.SentinelWatch, error) {
		ctx, cancel := context.WithTimeout(run.Ctx, sentinelSetup)
		defer cancel()
		proxy, err := sentinel.NewProxy(primary.Addr)
		if err != nil {
			return nil, err
		}
		g := sentinel.NewGroup(opts)
		w := &watch{g: g, proxy: proxy, name: name}
		if err := g.Monitor(ctx, name, proxy.Addr(), len(opts)/2+1, downAfter, timeout); err != nil {
			return nil, w.closeWith(err)
		}
		if err := g.WaitReady(ctx, name, 1); err != nil {
			return nil, w.closeWith(err)
		}
		events, stop, err := g.Events(ctx, name)
		if err != nil {
			return nil, w.closeWith(err)
		}
		w.stop = stop
		w.wg.Go(func() { w.collect(events) })
		return w, nil
	}
}

// watch is a run's master on the Sentinels.
type watch struct {
	g     *sentinel.Group
	proxy *sentinel.Proxy
	name  string
	stop  func()
	wg    sync.WaitGroup

	mu     sync.Mutex
	events []backend.SentinelEvent
}

func (w *watch) collect(events <-chan sentinel.Event) {
	for e := range events {
		w.mu.Lock()
		w.events = append(w.events, backend.SentinelEvent{Kind: e.Kind, Sentinel: e.Sentinel, Instance: e.Instance, Addr: e.Addr, At: e.At})
		w.mu.Unlock()
	}
}

func (w *watch) Down() { w.proxy.Close() }

func (w *watch) Events() []backend.SentinelEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.events
	w.events = nil
	return out
}

// Close has every Sentinel forget the run's master, within a bound of its
// own (the run's context may be cancelled).
func (w *watch) Close() error { return w.closeWith(nil) }

func (w *watch) closeWith(err error) error {
	if w.stop != nil {
		w.stop()
		w.wg.Wait()
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	if rerr := w.g.Remove(ctx, w.name); rerr != nil {
		err = errors.Join(err, fmt.Errorf("SENTINEL REMOVE %s: %w", w.name, rerr))
	}
	w.proxy.Close()
	return errors.Join(err, w.g.Close())
}
