package sim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

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
// key (lockArgs: SET key VALUE …, a script's ARGV), not a number, not one
// of Env.Token's, and at least minToken bytes long: a short value is not
// random enough to be an owner token, and a name replaces its value
// wherever the value appears in a line of text.

// minToken is the shortest value the trace renames.
const minToken = 8

// renamer names a run's own tokens. It lives on the world's goroutine.
type renamer struct {
	names map[string]string // raw value → name
	count map[string]int    // names given per client
	rep   *strings.Replacer // every raw value by its name; nil for none
}

// seeTokens names the tokens cmd, sent by client c, carries that have no
// name yet. It runs as the command reaches the gate, before anything of it
// is in the trace.
func (w *World) seeTokens(c *client, cmd redis.Cmder) {
	if c == nil || cmd == nil {
		return
	}
	cmds := []redis.Cmder{cmd}
	if b, ok := batchOf(cmd); ok {
		cmds = b.cmds
	}
	for _, one := range cmds {
		if !w.mayName(c, one.Args()) {
			continue
		}
		args := keptArgs(one.Args())
		vals := lockArgs(args, c.key)
		if c.key != w.setup.Key {
			vals = append(vals, lockArgs(args, w.setup.Key)...)
		}
		for _, v := range vals {
			if w.isOwnToken(v) {
				w.nameToken(c.name, v)
			}
		}
	}
}

// mayName says whether a command of these arguments may carry a token:
// a script, or a command on a lock's key with a value after it. It spares
// the rest of the commands the work of seeTokens.
func (w *World) mayName(c *client, args []any) bool {
	if len(args) < 3 {
		return false
	}
	if name, ok := args[0].(string); ok && len(name) >= 4 && strings.EqualFold(name[:4], "eval") {
		return true
	}
	key, ok := args[1].(string)
	return !ok || key == c.key || key == w.setup.Key
}

// isOwnToken says whether v is a token the lock drew itself.
func (w *World) isOwnToken(v string) bool {
	if len(v) < minToken || isNumber(v) || w.handedOut(v) {
		return false
	}
	_, named := w.names.names[v]
	return !named
}

// handedOut says whether v holds a token as Env.Token spells one, a
// client's name, "#" and a number: the same from run to run (bigvalue's
// "A#1:xxx…").
func (w *World) handedOut(v string) bool {
	for _, c := range w.clients {
		rest := v
		for {
			i := strings.Index(rest, c.name+"#")
			if i < 0 {
				break
			}
			rest = rest[i+len(c.name)+1:]
			if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
				return true
			}
		}
	}
	return false
}

// nameToken gives v the next name of client's.
func (w *World) nameToken(client, v string) {
	r := &w.names
	if r.names == nil {
		r.names, r.count = map[string]string{}, map[string]int{}
	}
	r.count[client]++
	name := client + "~" + strconv.Itoa(r.count[client])
	r.names[v] = name
	w.trace.Tokens = append(w.trace.Tokens, trace.RawToken{Name: name, Value: v})
	pairs := make([]string, 0, 2*len(w.trace.Tokens))
	// Longer values first: one that holds another is replaced whole.
	toks := slices.Clone(w.trace.Tokens)
	slices.SortStableFunc(toks, func(a, b trace.RawToken) int { return len(b.Value) - len(a.Value) })
	for _, t := range toks {
		pairs = append(pairs, t.Value, t.Name)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// canon is s with the run's tokens by their names.
func (w *World) canon(s string) string {
	if w.names.rep == nil || s == "" {
		return s
	}
	return w.names.rep.Replace(s)
}

// canonText is t with the run's tokens by their names.
func (w *World) canonText(t text.Text) text.Text {
	if w.names.rep == nil {
		return t
	}
	t.EN, t.ZH = w.canon(t.EN), w.canon(t.ZH)
	return t
}

// canonEvent shows e's tokens by their names: everything of it but the
// raw values in Trace.Tokens.
func (w *World) canonEvent(e *trace.Event) {
	if w.names.rep == nil {
		return
	}
	if e.Args != nil {
		e.Args = slices.Clone(e.Args)
		for i, a := range e.Args {
			e.Args[i] = w.canon(a)
		}
	}
	e.Command, e.Reply = w.canon(e.Command), w.canon(e.Reply)
	e.Text, e.Short = w.canonText(e.Text), w.canonText(e.Short)
	for i := range e.Snap.Servers {
		keys := slices.Clone(e.Snap.Servers[i].Keys)
		for j := range keys {
			keys[j].Value = w.canon(keys[j].Value)
		}
		e.Snap.Servers[i].Keys = keys
	}
	for i := range e.Snap.Clients {
		e.Snap.Clients[i].Token = w.canon(e.Snap.Clients[i].Token)
	}
}
