package explore

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// notHashed lists the fields of view.State that Hash reads without writing,
// and why. Every other field changes the hash when it changes, in some
// state of a short search (TestHashSeesEveryField): a field the view gains
// is written by Hash, or said here not to be.
var notHashed = map[string]string{
	"State.Alike":          "says which renamings of the clients Hash tries (symmetries)",
	"State.Key":            "the lock's key: the setup's; Tokens says what it makes a token",
	"ServerView.Replica":   "the topology: set when the world is built, changed only by a failover, which Role shows; Hash reads it to tell whether nodes are symmetric",
	"ServerView.Primary":   "the topology, as Replica",
	"NodeView.Server":      "the route: changed only by a failover, which Role shows; Hash reads it to name nodes",
	"ActorView.Client":     "whose actor it is: its name says so; Hash orders actors by it",
	"ActorView.Flight":     "a flight is named client/node; Hash orders a client's flights by name",
	"ActorView.Cmd":        "written only when the command is parked (Gated) or on its way (OnItsWay)",
	"ActorView.Node":       "written only with Cmd",
	"ActorView.SleepIn":    "written only when Sleeping",
	"ActorView.WokeAgo":    "written only when Waking",
	"ActorView.WatchedAgo": "written only when Watching",
	"ActorView.WaitWant":   "written only when Waiting",
	"ActorView.WaitAhead":  "written only when Waiting",
	"State.PromoteIn":      "written only when Promoting",
	"State.OrphanFor":      "written only when Orphan",
	"FaultMemory.By":       "what its fault's targets are, the same for every state of its Fault (written); Hash reads it to name them",
	"State.Resource.Owner": "written only with TokenGuard, as which clients' claims equal it",
	"ClientView.Claim":     "written only with TokenGuard, as which other claims it equals",
	"ClientView.Token":     "a token counts by where it stands, not by its spelling (Hash)",
	"ReplView.Value.Key":   "the same as ReplView.Key",
	"ReplView.Value.TTL":   "the TTL the write delivers is ExpireIn's",
}

// conditional fields are checked where their condition holds: the field
// that makes them written, and the value it takes then.
var writtenWith = map[string]string{
	"ActorView.Cmd": "ActorView.Gated", "ActorView.Node": "ActorView.Gated",
	"ActorView.SleepIn": "ActorView.Sleeping", "ActorView.WokeAgo": "ActorView.Waking",
	"ActorView.WaitWant": "ActorView.Waiting", "ActorView.WaitAhead": "ActorView.Waiting",
	"ActorView.WatchedAgo": "ActorView.Watching",
	"State.PromoteIn":      "State.Promoting", "State.OrphanFor": "State.Orphan",
}

// indexes are the bounds of the index fields the test changes: the
// number of servers, of nodes, in the state at hand.
var indexes map[string]int

// Every field of view.State that Hash writes changes the hash (the named
// one, where no renaming can hide a change) when it changes, in some state
// of a short search.
func TestHashSeesEveryField(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range []string{"uuid-lua", "redlock", "fenced"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := NewWorld(in, trace.Schedule{Clients: 2, Attempts: 2, Faults: []trace.Fault{sim.FaultExpiry, sim.FaultPause}})
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 14; step++ {
			sv := st.State()
			// A write on its way to a replica, so that Repl's fields are
			// there to change.
			sv.Repl = append(sv.Repl, view.ReplView{Key: "k", Value: trace.KeyState{Type: "string", Value: "v"}})
			hash := func() uint64 { return HashNamed(sv) }
			report := func(path string, changed bool) { seen[path] = seen[path] || changed }
			indexes = map[string]int{"Lease.Server": len(sv.Servers), "ActorView.Node": len(sv.Nodes)}
			if len(sv.Faults) > 0 {
				indexes["Strike.Target"] = targets(sv, sv.Faults[0])
			}
			mutateFields(reflect.ValueOf(&sv).Elem(), "State", hash, report)
			mutateMemories(sv, hash, report)
			moves := st.Moves()
			if len(moves) == 0 {
				break
			}
			if err := st.Do(moves[len(moves)/2].ID); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	for _, path := range slices.Sorted(maps.Keys(seen)) {
		_, exempt := notHashed[path]
		switch {
		case !seen[path] && !exempt:
			t.Errorf("changing %s never changed the hash: write it in Hash, or say in notHashed why not", path)
		case seen[path] && exempt && writtenWith[path] == "":
			t.Errorf("notHashed says Hash does not write %s, but changing it changed the hash", path)
		}
	}
	for path := range notHashed {
		if _, ok := seen[path]; !ok {
			t.Errorf("notHashed lists %s, which State no longer has", path)
		}
	}
}

// mutateMemories checks every fault's memory in sv, as mutateFields
// checks the first element of a slice: each struck at its first target
// (forgotten there, or struck there first), and each memory's fields
// changed, its first target struck.
func mutateMemories(sv view.State, hash func() uint64, report func(path string, changed bool)) {
	for i := range sv.Faults {
		m := &sv.Faults[i]
		old := m.Struck
		before := hash()
		if len(old) > 0 && old[0].Target == 0 {
			m.Struck = old[1:]
		} else {
			m.Struck = append([]view.Strike{{}}, old...)
		}
		report("State.Faults["+string(m.Fault)+"]", hash() != before)
		if m.Struck = old; len(old) == 0 || old[0].Target != 0 {
			m.Struck = append([]view.Strike{{}}, old...)
		}
		indexes["Strike.Target"] = targets(sv, *m)
		mutateFields(reflect.ValueOf(m).Elem(), "FaultMemory", hash, report)
		m.Struck = old
	}
}

// targets is how many targets memory m may strike in sv: its clients, or
// its nodes.
func targets(sv view.State, m view.FaultMemory) int {
	if m.By == view.KeyedByNode {
		return len(sv.Nodes)
	}
	return len(sv.Clients)
}

// mutateFields changes, one at a time, every scalar field under v (a
// struct's in a slice's first element, a slice of scalars by one element
// more or less; a field written only when another is true, with that one
// set), reports whether the hash changed, and puts the field back.
func mutateFields(v reflect.Value, path string, hash func() uint64, report func(path string, changed bool)) {
	typ := v.Type()
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+typ.Field(i).Name
		switch f.Kind() {
		case reflect.Struct:
			mutateFields(f, name, hash, report)
		case reflect.Slice:
			mutateSlice(f, name, hash, report)
		default:
			if cond, ok := writtenWith[name]; ok {
				c := v.FieldByName(cond[len(path)+1:])
				old := c.Bool()
				c.SetBool(true)
				mutateScalar(f, name, hash, report)
				c.SetBool(old)
				continue
			}
			if _, exempt := notHashed[name]; exempt {
				// Not written: nothing to see, and an index changed
				// could point past its slice.
				report(name, false)
				continue
			}
			mutateScalar(f, name, hash, report)
		}
	}
}

func mutateSlice(f reflect.Value, name string, hash func() uint64, report func(path string, changed bool)) {
	if f.Type().Elem().Kind() == reflect.Struct {
		if f.Len() == 0 {
			return
		}
		mutateFields(f.Index(0), f.Type().Elem().Name(), hash, report)
		return
	}
	before := hash()
	old := f.Interface()
	if f.Len() > 0 {
		f.Set(f.Slice(0, f.Len()-1))
	} else {
		f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
	}
	report(name, hash() != before)
	f.Set(reflect.ValueOf(old))
}

func mutateScalar(f reflect.Value, name string, hash func() uint64, report func(path string, changed bool)) {
	before := hash()
	old := reflect.ValueOf(f.Interface())
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int64:
		if n, ok := indexes[name]; ok {
			// An index: another one in range.
			f.SetInt((f.Int() + 1) % int64(max(n, 1)))
			break
		}
		if f.Type() == reflect.TypeOf(time.Duration(0)) {
			f.SetInt(f.Int() + int64(time.Second))
		} else {
			f.SetInt(f.Int() + 1)
		}
	case reflect.String:
		f.SetString(f.String() + "x")
	default:
		return
	}
	report(name, hash() != before)
	f.Set(old)
}

// The state's hash sees which tokens are equal, not how they are spelt.
func TestClaimClasses(t *testing.T) {
	cs := func(a, b string) []view.ClientView { return []view.ClientView{{Claim: a}, {Claim: b}} }
	if claimClasses(cs("A#1", "B#1"), "B#1") == claimClasses(cs("A#1", "B#1"), "A#1") {
		t.Error("the row's stamp does not count")
	}
	if claimClasses(cs("A#1", "B#1"), "B#1") != claimClasses(cs("A#2", "B#7"), "B#7") {
		t.Error("the tokens' spelling counts")
	}
	if claimClasses(cs("1", "1"), "1") == claimClasses(cs("A#1", "B#1"), "B#1") {
		t.Error("equal tokens count as different ones")
	}
}

// Tokens are renamed in the order the hash meets them, in a string's value
// and in a hash's fields and values alike; numbers are not.
func TestTokenNames(t *testing.T) {
	tn := newTokenNames([]string{"tok-b", "tok-a"})
	str := func(v string) trace.KeyState { return trace.KeyState{Type: "string", Value: v} }
	hash := func(v string) trace.KeyState { return trace.KeyState{Type: "hash", Value: v} }
	if got := tn.value(str("tok-b")) + " " + tn.value(hash("tok-a=2")) + " " + tn.value(str("4")) +
		" " + tn.name("tok-b") + " " + tn.value(hash("x=tok-a")); got != "\x00v0 \x00v1=2 4 \x00v0 x=\x00v1" {
		t.Errorf("renamed %q", got)
	}
}
