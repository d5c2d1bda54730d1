package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// plainHello says whether cmd is a HELLO with its protocol version alone:
// a connection's handshake that changes nothing of whose connection it is.
// A HELLO with AUTH or SETNAME goes through the gate, which refuses it
// from lock code (command.SessionRefusal).
func plainHello(cmd redis.Cmder) bool {
	// Without cmd.Name, which lowers the name into a new string: the gate
	// sees every command of every run.
	args := cmd.Args()
	if len(args) == 0 || len(args) > 2 {
		return false
	}
	name, ok := args[0].(string)
	return ok && strings.EqualFold(name, "hello")
}

// gate is the go-redis hook that parks every command of an actor until the
// scheduler grants it. One gate per go-redis client; a client serves one
// logical node for one simulated process.
type gate struct {
	w    *World
	c    *model.Client
	node int
}

func (g *gate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if ctx.Value(model.NestedKey{}) != nil || plainHello(cmd) {
			// The connection handshake (HELLO) runs nested inside the first
			// command: it is plumbing, not a step. A connection that sends
			// no command through the gate (a PubSub's: package external
			// subscribes for a lock in another language) has it on its own.
			return next(ctx, cmd)
		}
		a := model.ActorFrom(ctx)
		root := goroutineRoot()
		if root == model.RootActor && !(a == g.c.Biz && g.c.Spawned.Load() == 0) {
			// An actor's own goroutine (the business one, Env.Go's): the
			// command is that actor's, whatever context it was sent with
			// (context.Background, or the context of the TryAcquire that
			// started a watchdog). Own reads the goroutine's traceback;
			// where the context names the business actor and the client
			// has no other, the answer is that actor either way (Own's, or
			// the context's when the goroutine is not the client's), and
			// the traceback is not read.
			if own := g.w.Sched.Goroutines.Own(g.c); own != nil {
				a = own
			}
		}
		if a == nil {
			// Lock code that sends with a context of its own making
			// (context.Background in a watchdog's goroutine): the command is
			// still its client's, a flight of its business goroutine's.
			a = g.c.Biz
		}
		if g.w.Act.closing.Load() {
			cmd.SetErr(redis.ErrClosed)
			return redis.ErrClosed
		}
		x, kind := a, model.MsgGate
		if root != model.RootActor {
			// A goroutine the lock code started itself: its command is a
			// flight, a move of its own.
			x = &model.Actor{Client: a.Client, Parent: a, Flight: true, Bg: a.Bg,
				Resume: make(chan error, 1), State: model.StateParked}
			// A call of Env.Fan: the engine knows its goroutine.
			x.Fan = root == model.RootFan
			kind = model.MsgFlight
		}
		a = x
		g.w.Act.Send(model.Msg{A: a, Kind: kind, Cmd: cmd, Node: g.node, Sent: ctx.Value(model.SentKey{}) != nil})
		var err error
		select {
		case err = <-a.Resume:
		case <-ctx.Done():
			// Cancelled while parked (a watchdog being stopped, a library's
			// own timeout). The scheduler answers ErrCancelled if it had not
			// let the command go yet: it is never sent. If it had, the
			// go-ahead is already on its way; the command goes with its
			// context's error, as a step of its own.
			g.w.Act.Send(model.Msg{A: a, Kind: model.MsgUngate, Err: ctx.Err()})
			if err = a.Wait(); err == nil {
				err = ctx.Err()
				cmd.SetErr(err)
				shown := err
				if errors.Is(err, context.DeadlineExceeded) {
					// go-redis sends nothing once the deadline has passed.
					shown = &command.NotSentError{Client: g.c.Name, Err: err}
				}
				g.w.Act.Send(model.Msg{A: a, Kind: model.MsgCmdDone, Cmd: cmd, Node: g.node, Server: g.w.Fleet.Route[g.node], Err: shown})
				_ = a.Wait()
				return err
			}
			if errors.Is(err, model.ErrCancelled) {
				err = ctx.Err()
			}
		}
		if err != nil {
			cmd.SetErr(err)
			return err
		}
		srv := g.w.Fleet.Route[g.node]
		if s := g.w.Fleet.Servers[srv]; s.Latency > 0 && s.Up && !g.c.Cut[g.node] {
			// A slow server: the command is on its way while the rest of
			// the world runs on, and reaches the server — and runs there —
			// latency later, in virtual time. The reply comes back at once.
			g.w.Act.Send(model.Msg{A: a, Kind: model.MsgSlow, Cmd: cmd, Node: g.node, Server: srv, Deadline: g.w.Now + s.Latency})
			arrived, err := g.onItsWay(ctx, next, a, cmd, srv)
			if err != nil {
				cmd.SetErr(err)
				return err
			}
			// It arrived: it runs, and its reply comes back, whatever
			// became of ctx meanwhile (on real servers a timer of the
			// lock's is seen only when the scheduler next listens).
			return g.arrive(arrived, next, a, cmd, g.w.Fleet.Route[g.node])
		}
		return g.arrive(ctx, next, a, cmd, srv)
	}
}

// onItsWay waits while actor a's command is on its way to slow server srv.
// When the command arrives it returns the context to run it with: ctx, or
// ctx without its end if that came too late to stop the wait. When ctx
// ends first it returns ctx's error: the client stops waiting (a per-node
// timeout: lockstep's clients honour a context's deadline on a reply, as
// go-redis does with ContextTimeoutEnabled), but the command was sent and
// goes on to the server; a goroutine of the gate's carries it there (the
// scheduler's orphan, an actor of its own) and runs it when it arrives,
// its reply read by nobody.
func (g *gate) onItsWay(ctx context.Context, next redis.ProcessHook, a *model.Actor, cmd redis.Cmder, srv int) (context.Context, error) {
	select {
	case err := <-a.Resume:
		return ctx, err // nil: it arrived; redis.ErrClosed: the run ended
	case <-ctx.Done():
	}
	orphan := &model.Actor{Resume: make(chan error, 1)}
	g.w.Act.Send(model.Msg{A: a, Kind: model.MsgGiveUp, Cmd: cmd, Node: g.node, Server: srv, Err: ctx.Err(), Child: orphan})
	if err := a.Wait(); !errors.Is(err, model.ErrGaveUp) {
		// nil: the scheduler had let it go already, and it arrived.
		return context.WithoutCancel(ctx), err
	}
	late := redis.NewCmd(ctx, cmd.Args()...)
	go func() {
		if orphan.Wait() != nil {
			// The run ended before the command arrived.
			return
		}
		_ = g.arrive(context.WithoutCancel(ctx), next, orphan, late, g.w.Fleet.Route[g.node])
	}()
	return nil, ctx.Err()
}

// arrive runs actor a's command cmd, which has reached server srv (or
// failed to: a partition, a server that is down), and tells the scheduler
// how it went.
func (g *gate) arrive(ctx context.Context, next redis.ProcessHook, a *model.Actor, cmd redis.Cmder, srv int) error {
	var err error
	_, embedded := g.w.Fleet.Servers[srv].B.(*backend.Embedded)
	err = command.SessionRefusal(cmd)
	if r := g.w.Wall.Real; r != nil {
		if r.Target.NoACL && err == nil {
			err = command.ClientRefusal(cmd, g.w.Setup.Key)
		}
		for _, k := range command.NamedKeys(cmd) {
			// Only the lock's own: the snapshot reads them, the
			// cleanup deletes them.
			if command.OwnKey(k, g.w.Setup.Key) {
				r.AddKeys(k)
			}
		}
	}
	if err != nil {
		// Refused by the gate's own check: not sent.
	} else if g.c.Cut[g.node] {
		err = &command.PartitionError{Client: g.c.Name, Server: g.w.Fleet.Servers[srv].Name}
	} else if !g.w.Fleet.Servers[srv].Up {
		err = &command.NodeDownError{Server: g.w.Fleet.Servers[srv].Name}
	} else if noScript := g.w.Fleet.Servers[srv].Scripts.UnknownScript(cmd); noScript != nil {
		err = noScript // what Redis answers; not sent (command.ScriptCache)
		if g.c.Mute[g.node] {
			err = &command.PartitionError{Client: g.c.Name, Server: g.w.Fleet.Servers[srv].Name, ReplyLost: true}
		}
	} else if wc, isWait := model.ParseWait(cmd, srv); isWait && embedded && !command.InBatch(cmd) {
		// Embedded servers have no real replicas (miniredis answers
		// WAIT with 0): the engine answers from its replication queue,
		// in virtual time, while the rest of the world runs on.
		g.w.Act.Send(model.Msg{A: a, Kind: model.MsgWait, Wait: wc})
		_ = a.Wait()
		err = a.WaitErr
		if err == nil {
			cmd.(*redis.IntCmd).SetVal(a.WaitReply)
		}
	} else {
		if n := g.w.inflight.Add(1); n != 1 {
			// The scheduler lets one command go at a time; a second one
			// means a command that bypassed it.
			panic(fmt.Sprintf("lockstep: %d Redis commands in flight at once", n))
		}
		run := cmd
		if g.c.Mute[g.node] {
			// The reply will be lost: the server runs a copy, and the
			// client's own command never gets a value, as when a
			// timeout strikes before the reply is read.
			run = redis.NewCmd(ctx, cmd.Args()...)
		}
		err = next(context.WithValue(ctx, model.NestedKey{}, true), run)
		g.w.inflight.Add(-1)
		srv = int(g.c.Conn[g.node].Load())
		if embedded {
			err = command.AsRedisScriptError(cmd, err)
		}
		g.w.Fleet.Servers[srv].Scripts.Learn(cmd, err)
		if errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The deadline passed on the way (real time, on a real
			// server): go-redis sent nothing.
			err = &command.NotSentError{Client: g.c.Name, Err: err}
		} else if err != nil && model.IsConnErr(err) && !g.w.Fleet.Servers[srv].Up {
			err = &command.NodeDownError{Server: g.w.Fleet.Servers[srv].Name, Lost: true}
		} else if g.c.Mute[g.node] {
			// It ran; the reply does not come back.
			err = &command.PartitionError{Client: g.c.Name, Server: g.w.Fleet.Servers[srv].Name, ReplyLost: true}
		}
	}
	// go-redis sets the error on the command only after all hooks have
	// returned; the trace needs it now.
	if err != nil {
		cmd.SetErr(err)
	}
	g.w.Act.Send(model.Msg{A: a, Kind: model.MsgCmdDone, Cmd: cmd, Node: g.node, Server: srv, Err: command.WithFallback(cmd, err)})
	_ = a.Wait()
	return err
}

// newRedisClient builds the go-redis client of client c for logical node i:
// connections to whichever server the node currently routes to, and options
// that keep the trace honest. On real servers the client starts from the
// server's own parsed options, so its user, password, database and TLS are
// the ones the user gave; the handshake (HELLO, AUTH, SELECT) runs nested in
// the first command and is not a step.
func (w *World) newRedisClient(c *model.Client, i int) *redis.Client {
	o := &redis.Options{
		// An IP literal: a host name would mean a DNS lookup. The dialer never
		// uses it anyway.
		Addr:         fmt.Sprintf("127.0.0.%d:6379", i+1),
		ReadTimeout:  -1,
		WriteTimeout: -1,
		DialTimeout:  time.Second,
	}
	if base := w.Fleet.Servers[w.Fleet.Route[i]].B.ClientOptions(); base != nil {
		o = w.realClientOptions(base, i)
	}
	o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return w.dial(ctx, c, i)
	}
	o.PoolSize = 1
	// A lock command and its reply are small: go-redis's 32 KiB buffers per
	// connection were the largest allocation of a run (the explorer builds
	// thousands of worlds).
	o.ReadBufferSize, o.WriteBufferSize = 4096, 4096
	o.MaxRetries = -1 // 0 would mean 3 hidden retries
	o.Protocol = 2
	o.DisableIdentity = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	rc := redis.NewClient(o)
	rc.AddHook(&gate{w: w, c: c, node: i})
	return rc
}

// realClientOptions are a lock client's options on a real server: o, the
// server's own (its backend's ClientOptions), with credentials that follow
// the node. After a failover the node routes to another server: the
// credentials of a new connection are those of the server it goes to.
func (w *World) realClientOptions(o *redis.Options, i int) *redis.Options {
	o.CredentialsProvider, o.StreamingCredentialsProvider = nil, nil
	o.CredentialsProviderContext = func(context.Context) (string, string, error) {
		opts := w.Fleet.Servers[w.Fleet.Route[i]].B.ClientOptions()
		return opts.Username, opts.Password, nil
	}
	return o
}
