package sim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
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
	// named are the tokens named so far, in order: the run's
	// Trace.Tokens.
	named *[]trace.RawToken
}

// seeTokens names the tokens cmd, sent by client c, carries that have no
// name yet. It runs as the command reaches the gate, before anything of it
// is in the trace.
func (w *world) seeTokens(c *client, cmd redis.Cmder) {
	if c == nil || cmd == nil {
		return
	}
	cmds := []redis.Cmder{cmd}
	if b, ok := command.BatchOf(cmd); ok {
		cmds = b.Cmds
	}
	r := &w.names
	for _, one := range cmds {
		if !mayName(c, one.Args(), w.setup.Key) {
			continue
		}
		args := command.KeptArgs(one.Args())
		vals := lockArgs(args, c.key)
		if c.key != w.setup.Key {
			vals = append(vals, lockArgs(args, w.setup.Key)...)
		}
		for _, v := range vals {
			if r.isOwn(v, w.clients) {
				r.name(c.name, v)
			}
		}
	}
}

// mayName says whether a command of these arguments, of client c's, may
// carry a token: a script, or a command on a lock's key (c's, or the run's
// key) with a value after it. It spares the rest of the commands the work
// of seeTokens.
func mayName(c *client, args []any, key string) bool {
	if len(args) < 3 {
		return false
	}
	if name, ok := args[0].(string); ok && len(name) >= 4 && strings.EqualFold(name[:4], "eval") {
		return true
	}
	k, ok := args[1].(string)
	return !ok || k == c.key || k == key
}

// isOwn says whether v is a token the lock drew itself, not one Env.Token
// handed one of clients.
func (r *renamer) isOwn(v string, clients []*client) bool {
	if len(v) < minToken || isNumber(v) || handedOut(v, clients) {
		return false
	}
	_, named := r.names[v]
	return !named
}

// handedOut says whether v holds a token as Env.Token spells one, a
// client's name, "#" and a number: the same from run to run (bigvalue's
// "A#1:xxx…").
func handedOut(v string, clients []*client) bool {
	for _, c := range clients {
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

// name gives v the next name of client's.
func (r *renamer) name(client, v string) {
	if r.names == nil {
		r.names, r.count = map[string]string{}, map[string]int{}
	}
	r.count[client]++
	name := client + "~" + strconv.Itoa(r.count[client])
	r.names[v] = name
	*r.named = append(*r.named, trace.RawToken{Name: name, Value: v})
	pairs := make([]string, 0, 2*len(*r.named))
	// Longer values first: one that holds another is replaced whole.
	toks := slices.Clone(*r.named)
	slices.SortStableFunc(toks, func(a, b trace.RawToken) int { return len(b.Value) - len(a.Value) })
	for _, t := range toks {
		pairs = append(pairs, t.Value, t.Name)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// canon is s with the run's tokens by their names.
func (r *renamer) canon(s string) string {
	if r.rep == nil || s == "" {
		return s
	}
	return r.rep.Replace(s)
}

// canonText is t with the run's tokens by their names.
func (r *renamer) canonText(t text.Text) text.Text {
	if r.rep == nil {
		return t
	}
	t.EN, t.ZH = r.canon(t.EN), r.canon(t.ZH)
	return t
}

// canonEvent shows e's tokens by their names: everything of it but the
// raw values in Trace.Tokens.
func (r *renamer) canonEvent(e *trace.Event) {
	if r.rep == nil {
		return
	}
	if e.Args != nil {
		e.Args = slices.Clone(e.Args)
		for i, a := range e.Args {
			e.Args[i] = r.canon(a)
		}
	}
	e.Command, e.Reply = r.canon(e.Command), r.canon(e.Reply)
	e.Text, e.Short = r.canonText(e.Text), r.canonText(e.Short)
	for i := range e.Snap.Servers {
		keys := slices.Clone(e.Snap.Servers[i].Keys)
		for j := range keys {
			keys[j].Value = r.canon(keys[j].Value)
		}
		e.Snap.Servers[i].Keys = keys
	}
	for i := range e.Snap.Clients {
		e.Snap.Clients[i].Token = r.canon(e.Snap.Clients[i].Token)
	}
}
