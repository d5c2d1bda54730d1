package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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

// batch is a transaction's commands, with its MULTI and EXEC.
type batch struct {
	cmds []redis.Cmder
}

// batches holds each transaction under way, by its last command, its EXEC: the gate and the engine pass that command
// around as the batch's, and the functions that show a command look its
// batch up.
var batches sync.Map // redis.Cmder → batch

// batchOf is the batch whose last command is cmd, if it is one.
func batchOf(cmd redis.Cmder) (batch, bool) {
	v, ok := batches.Load(cmd)
	if !ok {
		return batch{}, false
	}
	return v.(batch), true
}

// isTx says whether a pipeline's commands are a transaction: go-redis wraps
// TxPipelined's commands in MULTI and EXEC.
func isTx(cmds []redis.Cmder) bool {
	return len(cmds) >= 2 && strings.EqualFold(cmds[0].Name(), "multi") && strings.EqualFold(cmds[len(cmds)-1].Name(), "exec")
}

// ProcessPipelineHook lets a lock client's transaction through the gate as
// one command, its last, and a pipeline as its commands (see above); the
// handshake's own pipelines go straight through.
func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if ctx.Value(nestedKey{}) != nil || len(cmds) == 0 {
			return next(ctx, cmds)
		}
		if !isTx(cmds) {
			return g.pipeline(ctx, next, cmds)
		}
		last := cmds[len(cmds)-1]
		batches.Store(last, batch{cmds: cmds})
		defer batches.Delete(last)
		err := g.ProcessHook(func(ctx context.Context, _ redis.Cmder) error { return next(ctx, cmds) })(ctx, last)
		if err != nil && last.Err() == nil {
			// The gate's own error (a partition, a server down, a reply
			// lost): the batch never reached the server, or its replies
			// never came back.
			for _, c := range cmds {
				c.SetErr(err)
			}
		}
		return firstErr(cmds, err)
	}
}

// sentKey marks the context of a pipeline's command after its first.
type sentKey struct{}

// pipeline sends a pipeline's commands through the gate one at a time, each
// a move of its own, as the server runs them. A command the gate answers
// itself (a partition, a server down) fails alone, as when the server is
// gone for it.
func (g *gate) pipeline(ctx context.Context, next redis.ProcessPipelineHook, cmds []redis.Cmder) error {
	one := func(ctx context.Context, cmd redis.Cmder) error { return next(ctx, []redis.Cmder{cmd}) }
	for i, cmd := range cmds {
		cctx := ctx
		if i > 0 {
			cctx = context.WithValue(ctx, sentKey{}, true)
		}
		_ = g.ProcessHook(one)(cctx, cmd)
	}
	return firstErr(cmds, nil)
}

// firstErr is what a batch returns, as go-redis gives it: the first error
// of its commands (a transaction's TxFailedErr when a WATCH fired).
func firstErr(cmds []redis.Cmder, err error) error {
	for _, c := range cmds {
		if e := c.Err(); e != nil {
			return e
		}
	}
	return err
}

// commands are the batch's commands to show: a transaction's between its
// MULTI and EXEC.
func (b batch) commands() []redis.Cmder {
	return b.cmds[1 : len(b.cmds)-1]
}

// args are the batch's commands' arguments, one after another.
func (b batch) args() []any {
	var out []any
	for _, c := range b.cmds {
		out = append(out, c.Args()...)
	}
	return out
}

// format shows a transaction as its commands in order: "MULTI; DEL lock;
// EXEC".
func (b batch) format() string {
	var parts []string
	for _, c := range b.commands() {
		parts = append(parts, formatCommand(plain(c)))
	}
	parts = append(append([]string{"MULTI"}, parts...), "EXEC")
	return strings.Join(parts, "; ")
}

// reply shows a transaction's EXEC reply as redis-cli prints it, numbered
// ((nil) when a watched key changed and nothing ran).
func (b batch) reply(err error) string {
	if errors.Is(err, redis.TxFailedErr) || errors.Is(err, redis.Nil) {
		return "(nil)"
	}
	if err != nil && !b.commandErr(err) {
		return "(error) " + err.Error()
	}
	var parts []string
	for i, c := range b.commands() {
		parts = append(parts, fmt.Sprintf("%d) %s", i+1, replyOf(c, c.Err())))
	}
	return strings.Join(parts, " ")
}

// commandErr says whether err is one of the batch's commands' own replies
// (a command that failed, which the others do not undo).
func (b batch) commandErr(err error) bool {
	for _, c := range b.commands() {
		if c.Err() == err {
			return true
		}
	}
	return false
}

// plain is cmd shown as a command of its own, not as its batch's last: a
// copy when it is one.
func plain(cmd redis.Cmder) redis.Cmder {
	if _, ok := batchOf(cmd); ok {
		return redis.NewCmd(context.Background(), cmd.Args()...)
	}
	return cmd
}

// inBatch says whether cmd is the last of a transaction or a pipeline.
func inBatch(cmd redis.Cmder) bool {
	_, ok := batchOf(cmd)
	return ok
}
