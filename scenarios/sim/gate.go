package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// NodeDownError is what a command gets when its server is down.
type NodeDownError struct {
	Server string
	Lost   bool // the connection dropped under the command
}

func (e *NodeDownError) Error() string {
	if e.Lost {
		return fmt.Sprintf("connection to %s lost: server is down", e.Server)
	}
	return fmt.Sprintf("dial %s: connection refused: server is down", e.Server)
}

// gate is the go-redis hook that parks every command of an actor until the
// scheduler grants it. One gate per go-redis client; a client serves one
// logical node for one simulated process.
type gate struct {
	w     *World
	c     *client
	node  int
	depth int // >0 while a command is inside next: nested ones are handshake
}

func (g *gate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		a := actorFrom(ctx)
		if a == nil || g.depth > 0 {
			// The connection handshake (HELLO) runs nested inside the first
			// command: it is plumbing, not a step.
			return next(ctx, cmd)
		}
		if g.w.closing.Load() {
			cmd.SetErr(redis.ErrClosed)
			return redis.ErrClosed
		}
		g.w.send(msg{a: a, kind: msgGate, cmd: cmd, node: g.node})
		var err error
		select {
		case err = <-a.resume:
		case <-ctx.Done():
			// Cancelled while parked (a watchdog being stopped): the
			// command is never sent. Only the actor that cancels runs
			// meanwhile, and it waits for this one, so the scheduler sees
			// this message in a fixed order.
			g.w.send(msg{a: a, kind: msgUngate})
			if err = a.wait(); err == nil {
				err = ctx.Err()
			}
		}
		if err != nil {
			cmd.SetErr(err)
			return err
		}
		srv := g.w.route[g.node]
		_, embedded := g.w.servers[srv].b.(*memBackend)
		if g.c.cut[g.node] {
			err = &PartitionError{Client: g.c.name, Server: g.w.servers[srv].name}
		} else if !g.w.servers[srv].up {
			err = &NodeDownError{Server: g.w.servers[srv].name}
		} else if wc, isWait := parseWait(cmd, srv); isWait && embedded {
			// Embedded servers have no real replicas (miniredis answers
			// WAIT with 0): the engine answers from its replication queue,
			// in virtual time, while the rest of the world runs on.
			g.w.send(msg{a: a, kind: msgWait, wait: wc})
			_ = a.wait()
			err = a.waitErr
			if err == nil {
				cmd.(*redis.IntCmd).SetVal(a.waitReply)
			}
		} else {
			if n := g.w.inflight.Add(1); n != 1 {
				panic(fmt.Sprintf("lockstep: %d Redis commands in flight at once", n))
			}
			g.depth++
			err = next(ctx, cmd)
			g.depth--
			g.w.inflight.Add(-1)
			srv = g.c.conn[g.node]
			if err != nil && isConnErr(err) && !g.w.servers[srv].up {
				err = &NodeDownError{Server: g.w.servers[srv].name, Lost: true}
			}
		}
		// go-redis sets the error on the command only after all hooks have
		// returned; the trace needs it now.
		if err != nil {
			cmd.SetErr(err)
		}
		g.w.send(msg{a: a, kind: msgCmdDone, cmd: cmd, node: g.node, server: srv, err: err})
		_ = a.wait()
		return err
	}
}

func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if actorFrom(ctx) != nil && g.depth == 0 {
			// The catalogue sends no pipelines; a transaction would have to
			// be one step of its own, and that is not modelled.
			err := errors.New("lockstep: pipelines are not supported by the simulator")
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

func isConnErr(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.EOF) || errors.As(err, &ne)
}

// newRedisClient builds the go-redis client of client c for logical node i:
// in-process connections to whichever server the node currently routes to,
// and options that keep the trace honest.
func (w *World) newRedisClient(c *client, i int) *redis.Client {
	rc := redis.NewClient(&redis.Options{
		// An IP literal: a host name would mean a DNS lookup. The dialer never
		// uses it anyway.
		Addr: fmt.Sprintf("127.0.0.%d:6379", i+1),
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			srv := w.route[i]
			c.conn[i] = srv
			return w.servers[srv].b.dial(ctx)
		},
		PoolSize:        1,
		MaxRetries:      -1, // 0 would mean 3 hidden retries
		Protocol:        2,
		DisableIdentity: true,
		ReadTimeout:     -1,
		WriteTimeout:    -1,
		DialTimeout:     time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	})
	rc.AddHook(&gate{w: w, c: c, node: i})
	return rc
}
