package explore

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is what the search remembers of a state: its hash, written
// from the world's typed view (view.State). A field the view gains is a
// field the hash must write, or say why not (state_test.go holds both to
// it).

// Hash identifies a state by what the engine observes: servers' keys (TTLs
// relative to now) and pending replication, every actor's position and how
// long ago it last woke, every client's beliefs and tokens, the resource,
// the invariants' state. Two schedules that lead to the same hash continue
// the same way, provided an implementation's hidden state follows from
// these — in particular, that it reads the clock only when it wakes (as
// Redlock does at the start of an attempt) and otherwise measures time by
// sleeping.
//
// Clients count by what they do, not by their names, when they run the same
// program (see symmetries): a state and the same state with A and B swapped
// hash alike.
//
// Owner tokens count by where they stand, not by how they are spelled: a
// library that draws its own random tokens (a UUID per acquire) instead of
// Env.Token's readable ones would otherwise make every state new on every
// replay. A token is any value that is not a number (strconv.ParseFloat
// takes it) and is
//   - a client's token from Env.Token,
//   - the lock key's value, or a field of the lock key's hash (the owner of
//     a reentrant lock, "token=count"), on a server or in pending
//     replication, or
//   - an argument of a command parked at the gate that writes or names the
//     lock key: after the key in a command whose first argument is the lock
//     key (SET's value, a hash's field), or among the arguments (ARGV) of a
//     script whose keys include the lock key — less the option words (NX,
//     PX, …).
//
// The world finds them (view.State's Tokens). Every occurrence of a token —
// as any key's value or a hash field on a server or in pending
// replication, as a client's token, as an argument of a parked command —
// is written as "v0", "v1", … (behind a NUL byte no value holds) in the
// order the hash first meets it: servers' keys, pending replication,
// clients, parked commands. Which server holds which client's token stays
// in the hash; the spelling does not. Numbers are never renamed: a fencing
// counter at 3 and at 4, a reentrant hold count, a TTL, an expiry time a
// lock stores as its value all stay apart. What a lock keeps of its token
// in its own memory is hidden, like the rest of its state; Env.Token's
// token shows it, a library's own does not, and it is assumed to follow
// from the rest (the key its client wrote, the commands it sends). A hash
// of several tokens at once keeps its fields in the order of their
// spelling, so two such states can still count apart. Traces are
// untouched: they show the tokens as drawn.
//
// Nodes are symmetric too: with several independent servers (Redlock's),
// each a plain primary, a state is written with its nodes in a canonical
// order — by what each holds and has been through, the clients renamed —
// and named by that order, so that A holding redis-1 and redis-2 and A
// holding redis-2 and redis-3 count as one state. Nodes alike in all of it
// keep their own order; two states that count apart for that are explored
// both, as without the symmetry.
func Hash(st view.State) uint64 {
	return hash(st, symmetries(st), true)
}

// HashNamed is Hash with the clients' names kept: states that differ only
// in which client is which count apart. It is for implementations whose
// behaviour depends on a client's name or token spelling beyond what the
// state shows.
func HashNamed(st view.State) uint64 {
	return hash(st, symmetries(st)[:1], false)
}

func hash(st view.State, perms [][]int, nodes bool) uint64 {
	tok := newTokenNames(st.Tokens)
	nodes = nodes && nodesSymmetric(st)
	var best string
	for _, perm := range perms {
		clear(tok.names)
		if s, ok := newWriter(st, perm, tok, nodes).stateUnder(best); ok && (best == "" || s < best) {
			best = s
		}
	}
	h := fnv.New64a()
	h.Write([]byte(best))
	if st.Promoting {
		// Sentinel's promotion to come, as the time until it.
		fmt.Fprintf(h, "P%d", st.PromoteIn)
	}
	return h.Sum64()
}

// symmetries are the renamings of the clients under which the world is the
// same world, the identity first: every permutation when all clients run the
// same program without jitter (State.Alike), else none but the identity. A
// permutation maps a client's index to the index it is written as. Hash
// writes the state under each and keeps the least, so that two states that
// differ only in which client is which — A holds the lock and B waits, or B
// holds it and A waits — count as one: their futures are the same up to the
// names, and so are the invariants they can break. With three clients that
// is up to six times fewer states to explore.
func symmetries(st view.State) [][]int {
	ident := make([]int, len(st.Clients))
	for i := range ident {
		ident[i] = i
	}
	if !st.Alike {
		return [][]int{ident}
	}
	var out [][]int
	var permute func(k int)
	permute = func(k int) {
		if k == len(ident) {
			out = append(out, slices.Clone(ident))
			return
		}
		for i := k; i < len(ident); i++ {
			ident[k], ident[i] = ident[i], ident[k]
			permute(k + 1)
			ident[k], ident[i] = ident[i], ident[k]
		}
	}
	permute(0)
	return out
}

// nodesSymmetric says whether the world's nodes are interchangeable: more
// than one, each a server of its own with no replica, in route order.
func nodesSymmetric(st view.State) bool {
	if len(st.Nodes) < 2 || len(st.Servers) != len(st.Nodes) {
		return false
	}
	for i, n := range st.Nodes {
		srv := st.Servers[n.Server]
		if n.Server != i || srv.Replica >= 0 || srv.Primary >= 0 {
			return false
		}
	}
	return true
}

// tokenNames renames the owner tokens of one state for Hash: each to "v" and
// its number in the order the hash first meets it.
type tokenNames struct {
	is    map[string]bool
	names map[string]string
}

func newTokenNames(tokens []string) *tokenNames {
	t := &tokenNames{is: make(map[string]bool, len(tokens)), names: map[string]string{}}
	for _, v := range tokens {
		t.is[v] = true
	}
	return t
}

// name is v's canonical name if v is a token, else v.
func (t *tokenNames) name(v string) string {
	if !t.is[v] {
		return v
	}
	n, ok := t.names[v]
	if !ok {
		n = "\x00v" + strconv.Itoa(len(t.names))
		t.names[v] = n
	}
	return n
}

// value renames the tokens in a key's value: the whole of a string, the
// fields and values of a hash.
func (t *tokenNames) value(k trace.KeyState) string {
	if k.Type != "hash" {
		return t.name(k.Value)
	}
	fields := k.Fields()
	pairs := make([]string, len(fields))
	for i, f := range fields {
		pairs[i] = t.name(f[0]) + "=" + t.name(f[1])
	}
	return strings.Join(pairs, " ")
}

// command renders a parked command as the trace does, with its tokens
// renamed.
func (t *tokenNames) command(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if i > 0 {
			a = t.name(a)
		}
		out[i] = a
	}
	return command.FormatArgs(out)
}

// claimClasses writes which of the clients' lock tokens (in the order
// given) and the row's stamp are equal: each as the index of the first of
// them it equals. That, not the tokens' spelling, is what GuardToken's
// future refusals depend on.
func claimClasses(clients []view.ClientView, owner string) string {
	vals := make([]string, 0, len(clients)+1)
	for _, c := range clients {
		vals = append(vals, c.Claim)
	}
	vals = append(vals, owner)
	var b strings.Builder
	b.WriteString("T")
	for i, v := range vals {
		for k := range i + 1 {
			if vals[k] == v {
				b.WriteString(strconv.Itoa(k) + " ")
				break
			}
		}
	}
	return b.String() + "|"
}
