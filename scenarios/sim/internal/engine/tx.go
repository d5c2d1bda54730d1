package engine

import (
	"context"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// This file is how pipelines and transactions run in the simulator:
//
//   - A transaction (TxPipelined: MULTI, the commands, EXEC) queues its
//     commands, and the server applies them at EXEC, all at once, unless a
//     key the connection WATCHes changed since (EXEC answers nil). Nothing
//     of it happens before EXEC, so it is one move, at EXEC, as Redis has
//     it; a WATCH before it (Client.Watch) and the reads in between are
//     moves of their own, and another client's command may land between
//     them.
//   - A pipeline (Pipelined) sends its commands together, on one
//     connection, and the server runs them one after another: another
//     client's command may land between two of them. Each is a move of its
//     own (gate.pipeline); once the first has gone, the others are on the
//     wire, and the client's pause, crash, hang or hold cannot keep them
//     back (actor.sent).
//
// The trace shows a transaction as one event, "MULTI; DEL lock; EXEC" with
// EXEC's reply, and a pipeline's commands as the commands they are.

// ProcessPipelineHook lets a lock client's transaction through the gate as
// one command, its last, and a pipeline as its commands (see above); the
// handshake's own pipelines go straight through.
func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if ctx.Value(model.NestedKey{}) != nil || len(cmds) == 0 {
			return next(ctx, cmds)
		}
		if !command.IsTx(cmds) {
			return g.pipeline(ctx, next, cmds)
		}
		last := cmds[len(cmds)-1]
		defer command.TrackTx(cmds)()
		err := g.ProcessHook(func(ctx context.Context, _ redis.Cmder) error { return next(ctx, cmds) })(ctx, last)
		if err != nil && last.Err() == nil {
			// The gate's own error (a partition, a server down, a reply
			// lost): the batch never reached the server, or its replies
			// never came back.
			for _, c := range cmds {
				c.SetErr(err)
			}
		}
		return command.FirstErr(cmds, err)
	}
}

// pipeline sends a pipeline's commands through the gate one at a time, each
// a move of its own, as the server runs them. A command the gate answers
// itself (a partition, a server down) fails alone, as when the server is
// gone for it.
func (g *gate) pipeline(ctx context.Context, next redis.ProcessPipelineHook, cmds []redis.Cmder) error {
	one := func(ctx context.Context, cmd redis.Cmder) error { return next(ctx, []redis.Cmder{cmd}) }
	for i, cmd := range cmds {
		cctx := ctx
		if i > 0 {
			cctx = context.WithValue(ctx, model.SentKey{}, true)
		}
		_ = g.ProcessHook(one)(cctx, cmd)
	}
	return command.FirstErr(cmds, nil)
}
