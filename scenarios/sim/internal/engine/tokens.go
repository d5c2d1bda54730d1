package engine

import (
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// A lock that draws its owner tokens itself (crypto/rand, a UUID library,
// redsync's own value generator) writes values that differ from run to
// run, and so would every trace of it, though its verdicts do not. The
// trace names such a value canonically, as the search's state hash does
// (tokenNames): by the client whose command first carried it and the
// order it came in, "A~1", "A~2" — a spelling Env.Token, which hands out
// "A#1", never gives, so the two cannot be confused. The name stands for
// the value everywhere the trace shows it (the command's arguments and
// line, the reply, the narration, the snapshot's keys, the verdicts'
// reasons); Trace.Tokens keeps each raw value beside its name, what the
// server saw. Everything else in the trace is then the same from run to
// run.
//
// A token is a value a client's command writes to or names on its lock's
// key (LockArgs: SET key VALUE …, a script's ARGV), not a number, not one
// of Env.Token's, and at least minToken bytes long: a short value is not
// random enough to be an owner token, and a name replaces its value
// wherever the value appears in a line of text.

// seeTokens names the tokens cmd, sent by client c, carries that have no
// name yet. It runs as the command reaches the gate, before anything of it
// is in the trace.
func (w *World) seeTokens(c *model.Client, cmd redis.Cmder) {
	if c == nil || cmd == nil {
		return
	}
	cmds := []redis.Cmder{cmd}
	if b, ok := command.BatchOf(cmd); ok {
		cmds = b.Cmds
	}
	r := &w.Names
	for _, one := range cmds {
		if !model.MayName(c, one.Args(), w.Setup.Key) {
			continue
		}
		args := command.KeptArgs(one.Args())
		vals := model.LockArgs(args, c.Key)
		if c.Key != w.Setup.Key {
			vals = append(vals, model.LockArgs(args, w.Setup.Key)...)
		}
		for _, v := range vals {
			if r.IsOwn(v, w.Clients) {
				r.Name(c.Name, v)
			}
		}
	}
}
