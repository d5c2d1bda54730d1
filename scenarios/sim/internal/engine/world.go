package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/fleet"

	"github.com/lockstep-sim/lockstep/internal/bubble"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// This file is the world of one run, World, and how it is built: New, on
// embedded servers in a bubble of its own; buildWorld, which checks the
// target and makes the servers; and StartReal on real ones. What it is made
// of (clients, servers, actors) is package model's, its servers' replication
// and failover package fleet's. A client and its actors are made in
// clients.go, the run's time moves in time.go, the trace is recorded in
// record.go, and a world is closed in close.go.

// World is one run: servers, clients, the resource, the clock, the trace.
// Only the scheduler goroutine touches it while no actor runs; actors reach
// it through messages.
type World struct {
	Setup model.Setup
	Impl  lockimpl.Info

	// Act is the world as the actors' goroutines reach it (actor.go).
	Act      ActorSide
	inflight atomic.Int32 // gated commands inside go-redis: never more than one
	Err      error
	// Sched is the scheduler's side of the run: its goroutines, their
	// messages and their line (sched.go).
	Sched Sched
	// Commands reached a server; failed of them got an error other than a
	// nil reply. A run in which every command failed has no verdict.
	Commands, Failed int
	firstFailed      string
	// LockCalls are the calls of the lock's TryAcquire and Release;
	// LockErrs, those that returned an error other than ErrNotHeld.
	LockCalls, LockErrs int
	firstLockErr        error

	Now     time.Duration
	Clients []*model.Client
	// Fleet is the run's servers, their replication and failover
	// (replication.go).
	Fleet fleet.Fleet

	Res      model.Resource
	rows     map[string]*model.Resource // the rows of clients' own keys (Program.Key)
	Judge    model.Judge
	Trace    trace.Trace
	Names    model.Renamer // the lock's own tokens' names in the trace (tokens.go)
	PausedAt map[*model.Client]time.Duration

	// Wall is the run's relation to the wall clock: a real run's time,
	// a live run's pacer (realclock.go).
	Wall Wall
	Ctx  context.Context // the run's context

	closed bool // close ran: the servers went back to the pool once
}

// StartReal checks that the run starts clean, has each replica follow its
// primary, and starts the clock.
func (w *World) StartReal() error {
	for _, srv := range w.Fleet.Servers {
		keys, err := srv.B.Read(0)
		if err != nil {
			return fmt.Errorf("read %s: %w", srv.B.Addr(), err)
		}
		if len(keys) > 0 {
			return fmt.Errorf("%s already has keys under %s", srv.B.Addr(), w.Wall.Real.Target.Prefix)
		}
	}
	for _, srv := range w.Fleet.Servers {
		if srv.Primary < 0 {
			continue
		}
		f, ok := srv.B.(backend.Follower)
		if !ok {
			return fmt.Errorf("%s cannot replicate: its backend is not a Follower", srv.B.Addr())
		}
		if err := f.Follow(w.Fleet.Servers[srv.Primary].B, srv.Lag); err != nil {
			return err
		}
	}
	if err := w.Fleet.StartSentinels(); err != nil {
		return err
	}
	w.Wall.Real.SetStart(time.Now())
	return nil
}

func (w *World) Fail(err error) {
	if w.Err == nil {
		// An interrupted real run says so, whatever failed under it (a
		// REPLICAOF on a connection the interruption cut, say).
		w.Err = w.Wall.RunErr(err)
	}
}

// New builds a world: on real servers on the caller's goroutine, on
// embedded ones in a bubble of its own, whose clock is the run's virtual
// time (bubbled.go).
func New(ctx context.Context, setup model.Setup, impl lockimpl.Info, target *backend.Target) (*World, error) {
	if target != nil {
		return buildWorld(ctx, setup, impl, target, nil)
	}
	// The context's Done channel is made on its first use: let that be
	// here, outside the bubble. A channel a bubble makes may be used only
	// in it, and the caller's goroutines wait on this one too (a live run
	// in the TUI selects on it).
	ctx.Done()
	b := bubble.New()
	var w *World
	var err error
	b.Do(func() {
		// A bubble's clock starts at 2000-01-01: lock code that reads
		// time.Now sees what Env.Clock.Now says.
		time.Sleep(model.Epoch.Sub(time.Now()))
		w, err = buildWorld(ctx, setup, impl, nil, b)
	})
	if err != nil {
		_ = b.Close(model.CloseLimit)
		return nil, err
	}
	return w, nil
}

func buildWorld(ctx context.Context, setup model.Setup, impl lockimpl.Info, target *backend.Target, b *bubble.Bubble) (*World, error) {
	w := &World{Setup: setup.WithDefaults(), Impl: impl, Act: ActorSide{Done: make(chan struct{})},
		PausedAt: map[*model.Client]time.Duration{},
		Wall:     Wall{Pacer: backend.PacerFrom(ctx)}, Ctx: ctx,
		Sched: Sched{Ch: make(chan model.Msg), Bub: b, Watch: model.StallWatch{Bound: stallFrom(ctx)}}}
	w.Sched.Goroutines.World = worldIDs.Add(1)
	w.Fleet.Host, w.Fleet.Setup, w.Act.W, w.Sched.W, w.Wall.W = w, w.Setup, w, w, w
	s := &w.Setup
	w.Res = model.Resource{Name: model.RowName(s.Key), Value: s.Stock, Guard: s.Guard}
	w.Judge = newJudge(invariant.Settings{LivenessBound: s.LivenessBound})
	var nodes []*redis.Options
	if target != nil {
		nodes = target.Nodes
		if len(target.Slots) > 0 {
			if impl.Nodes > 1 {
				return nil, fmt.Errorf("%s needs %d independent servers, not a cluster's masters: %w", impl.Name, impl.Nodes, backend.ErrNeedsNodes)
			}
			master := target.NodeFor(target.Prefix + s.Key)
			if master == nil {
				return nil, fmt.Errorf("no master of the cluster serves slot %d of %s", backend.HashSlot(target.Prefix+s.Key), target.Prefix+s.Key)
			}
			nodes = []*redis.Options{master}
		}
		if impl.Nodes > len(nodes) {
			return nil, fmt.Errorf("%s needs %d servers, %d given: %w", impl.Name, impl.Nodes, len(nodes), backend.ErrNeedsNodes)
		}
		if s.Replica && impl.Nodes == 1 && target.Replica == nil {
			return nil, backend.ErrNeedsReplica
		}
		if s.Rejoin && impl.Nodes == 1 {
			return nil, backend.ErrEmbeddedOnly
		}
		if s.ClientKeys {
			return nil, model.ErrOwnKeyEmbedded
		}
		if s.Cluster && len(target.Slots) == 0 {
			return nil, backend.ErrNeedsCluster
		}
		if target.NewBackend == nil {
			return nil, backend.ErrNoBackend
		}
		// Sentinel's detection and election take seconds of real time.
		second := target.RunSecond(s.Replica, impl.Nodes)
		w.Wall.Real = backend.NewRealRun(ctx, target, second)
		s.Key = target.Prefix + s.Key
	}
	if impl.KeyOf != nil {
		s.Key = impl.KeyOf(s.Key)
	}
	if len(impl.SharedKeys) > 0 && target != nil {
		return nil, fmt.Errorf("%s keeps keys every lock of its shares (%s), which are not the run's own: %w",
			impl.Name, strings.Join(impl.SharedKeys, ", "), backend.ErrEmbeddedOnly)
	}
	if w.Wall.Real != nil {
		w.Wall.Real.AddKeys(s.Key)
	}
	newBackend := func(i int) backend.Backend {
		if w.Wall.Real == nil {
			return w.Fleet.NewMem()
		}
		if i < 0 {
			return target.NewBackend(w.Wall.Real, target.Replica)
		}
		return target.NewBackend(w.Wall.Real, nodes[i])
	}
	add := func(name, role string, b backend.Backend) int {
		w.Fleet.Servers = append(w.Fleet.Servers, &model.Server{Name: name, B: b, Up: true, Role: role, Replica: -1, Primary: -1})
		return len(w.Fleet.Servers) - 1
	}
	if s.Nodes > 0 && impl.Nodes > 1 {
		impl.Nodes = s.Nodes
		w.Impl = impl
	}
	if impl.Nodes > 1 {
		for i := range impl.Nodes {
			w.Fleet.Route = append(w.Fleet.Route, add(fmt.Sprintf("redis-%d", i+1), "node", newBackend(i)))
		}
	} else {
		role := "primary"
		if s.Cluster {
			role = "cluster master" // of the slot of the lock's key
		}
		p := add("redis-1", role, newBackend(0))
		w.Fleet.Route = []int{p}
		if s.Replica {
			r := add("redis-2", "replica", newBackend(-1))
			w.Fleet.Servers[p].Replica = r
			w.Fleet.Servers[r].Primary = p
			w.Fleet.Servers[r].Lag = s.Lag
		}
	}
	w.Trace = trace.Trace{Schema: trace.TraceSchema, Impl: impl.Name, Key: s.Key, TTL: s.TTL}
	w.Names.Named = &w.Trace.Tokens
	for _, srv := range w.Fleet.Servers {
		w.Trace.Servers = append(w.Trace.Servers, srv.Name)
		if w.Wall.Real != nil {
			w.Trace.Addrs = append(w.Trace.Addrs, srv.B.Addr())
		}
	}
	for _, srv := range w.Fleet.Servers {
		if e, ok := srv.B.(*backend.Embedded); ok {
			for _, k := range impl.SharedKeys {
				e.Share(k)
			}
		}
		if err := srv.B.Guard(s.Key); err != nil {
			w.Stop()
			w.Fleet.CloseServers(true) // no client has connected yet
			return nil, w.Wall.RunErr(fmt.Errorf("guard %s: %w", srv.Name, err))
		}
	}
	if w.Wall.Real != nil {
		if err := w.StartReal(); err != nil {
			w.Stop()
			w.Fleet.CloseServers(true) // no client has connected yet
			return nil, w.Wall.RunErr(err)
		}
	}
	return w, nil
}

// Time is the run's virtual time now (Host).
func (w *World) Time() time.Duration { return w.Now }

// Real is a real run's clock, nil on embedded servers (Host).
func (w *World) Real() *backend.RealRun { return w.Wall.Real }

// RunErr is err, or the interruption of a real run (Host).
func (w *World) RunErr(err error) error { return w.Wall.RunErr(err) }
