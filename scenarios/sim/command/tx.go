package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// This file is a transaction as the engine reads it: one command, its
// EXEC, that stands for the batch (MULTI, the commands, EXEC). The gate
// registers the batch under its EXEC while it runs (TrackTx), and the
// functions that show, check or name a command look the batch up
// (BatchOf).

// Batch is a transaction's commands (Cmds), with its MULTI and EXEC.
type Batch struct {
	Cmds []redis.Cmder
}

// batches holds each transaction under way, by its last command, its
// EXEC: the gate and the engine pass that command around as the batch's,
// and the functions that show a command look its batch up.
var batches sync.Map // redis.Cmder → Batch

// BatchOf is the batch whose last command is cmd, if it is one.
func BatchOf(cmd redis.Cmder) (Batch, bool) {
	v, ok := batches.Load(cmd)
	if !ok {
		return Batch{}, false
	}
	return v.(Batch), true
}

// TrackTx makes cmds, a transaction's commands with its MULTI and EXEC,
// the batch of its last command until the function it returns is called.
func TrackTx(cmds []redis.Cmder) (untrack func()) {
	last := cmds[len(cmds)-1]
	batches.Store(last, Batch{Cmds: cmds})
	return func() { batches.Delete(last) }
}

// IsTx says whether a pipeline's commands are a transaction: go-redis wraps
// TxPipelined's commands in MULTI and EXEC.
func IsTx(cmds []redis.Cmder) bool {
	return len(cmds) >= 2 && strings.EqualFold(cmds[0].Name(), "multi") && strings.EqualFold(cmds[len(cmds)-1].Name(), "exec")
}

// FirstErr is what a batch returns, as go-redis gives it: the first error
// of its commands (a transaction's TxFailedErr when a WATCH fired).
func FirstErr(cmds []redis.Cmder, err error) error {
	for _, c := range cmds {
		if e := c.Err(); e != nil {
			return e
		}
	}
	return err
}

// Commands are the batch's commands to show: a transaction's between its
// MULTI and EXEC.
func (b Batch) Commands() []redis.Cmder {
	return b.Cmds[1 : len(b.Cmds)-1]
}

// Args are the batch's commands' arguments, one after another.
func (b Batch) Args() []any {
	var out []any
	for _, c := range b.Cmds {
		out = append(out, c.Args()...)
	}
	return out
}

// Format shows a transaction as its commands in order: "MULTI; DEL lock;
// EXEC".
func (b Batch) Format() string {
	var parts []string
	for _, c := range b.Commands() {
		parts = append(parts, Format(Plain(c)))
	}
	parts = append(append([]string{"MULTI"}, parts...), "EXEC")
	return strings.Join(parts, "; ")
}

// Reply shows a transaction's EXEC reply as redis-cli prints it, numbered
// ((nil) when a watched key changed and nothing ran).
func (b Batch) Reply(err error) string {
	if errors.Is(err, redis.TxFailedErr) || errors.Is(err, redis.Nil) {
		return "(nil)"
	}
	if err != nil && !b.commandErr(err) {
		return "(error) " + err.Error()
	}
	var parts []string
	for i, c := range b.Commands() {
		parts = append(parts, fmt.Sprintf("%d) %s", i+1, Reply(c, c.Err())))
	}
	return strings.Join(parts, " ")
}

// commandErr says whether err is one of the batch's commands' own replies
// (a command that failed, which the others do not undo).
func (b Batch) commandErr(err error) bool {
	for _, c := range b.Commands() {
		if c.Err() == err {
			return true
		}
	}
	return false
}

// Plain is cmd shown as a command of its own, not as its batch's last: a
// copy when it is one.
func Plain(cmd redis.Cmder) redis.Cmder {
	if _, ok := BatchOf(cmd); ok {
		return redis.NewCmd(context.Background(), cmd.Args()...)
	}
	return cmd
}

// InBatch says whether cmd is the last of a transaction or a pipeline.
func InBatch(cmd redis.Cmder) bool {
	_, ok := BatchOf(cmd)
	return ok
}
