package model

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// minToken is the shortest value the trace renames.
const minToken = 8

// Renamer names a run's own tokens. It lives on the world's goroutine.
type Renamer struct {
	names map[string]string // raw value → name
	count map[string]int    // names given per client
	rep   *strings.Replacer // every raw value by its name; nil for none
	// Named are the tokens named so far, in order: the run's
	// Trace.Tokens.
	Named *[]trace.RawToken
}

// MayName says whether a command of these arguments, of client c's, may
// carry a token: a script, or a command on a lock's key (c's, or the run's
// key) with a value after it. It spares the rest of the commands the work
// of seeTokens.
func MayName(c *Client, args []any, key string) bool {
	if len(args) < 3 {
		return false
	}
	if name, ok := args[0].(string); ok && len(name) >= 4 && strings.EqualFold(name[:4], "eval") {
		return true
	}
	k, ok := args[1].(string)
	return !ok || k == c.Key || k == key
}

// IsOwn says whether v is a token the lock drew itself, not one Env.Token
// handed one of clients.
func (r *Renamer) IsOwn(v string, clients []*Client) bool {
	if len(v) < minToken || IsNumber(v) || handedOut(v, clients) {
		return false
	}
	_, named := r.names[v]
	return !named
}

// handedOut says whether v holds a token as Env.Token spells one, a
// client's name, "#" and a number: the same from run to run (bigvalue's
// "A#1:xxx…").
func handedOut(v string, clients []*Client) bool {
	for _, c := range clients {
		rest := v
		for {
			i := strings.Index(rest, c.Name+"#")
			if i < 0 {
				break
			}
			rest = rest[i+len(c.Name)+1:]
			if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
				return true
			}
		}
	}
	return false
}

// Name gives v the next name of client's.
func (r *Renamer) Name(client, v string) {
	if r.names == nil {
		r.names, r.count = map[string]string{}, map[string]int{}
	}
	r.count[client]++
	name := client + "~" + strconv.Itoa(r.count[client])
	r.names[v] = name
	*r.Named = append(*r.Named, trace.RawToken{Name: name, Value: v})
	pairs := make([]string, 0, 2*len(*r.Named))
	// Longer values first: one that holds another is replaced whole.
	toks := slices.Clone(*r.Named)
	slices.SortStableFunc(toks, func(a, b trace.RawToken) int { return len(b.Value) - len(a.Value) })
	for _, t := range toks {
		pairs = append(pairs, t.Value, t.Name)
	}
	r.rep = strings.NewReplacer(pairs...)
}

// canon is s with the run's tokens by their names.
func (r *Renamer) canon(s string) string {
	if r.rep == nil || s == "" {
		return s
	}
	return r.rep.Replace(s)
}

// CanonText is t with the run's tokens by their names.
func (r *Renamer) CanonText(t text.Text) text.Text {
	if r.rep == nil {
		return t
	}
	t.EN, t.ZH = r.canon(t.EN), r.canon(t.ZH)
	return t
}

// CanonEvent shows e's tokens by their names: everything of it but the
// raw values in Trace.Tokens.
func (r *Renamer) CanonEvent(e *trace.Event) {
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
	e.Text, e.Short = r.CanonText(e.Text), r.CanonText(e.Short)
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
