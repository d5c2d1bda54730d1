// Package invariant holds the properties every run of lockstep is judged
// on, each one file: mutex.go, ownership.go, liveness.go, resource.go.
//
// An invariant is judged from observations only — what each client
// believes, what each server holds, what the protected resource accepted —
// never from knowing which implementation runs. The engine (package sim)
// makes one Check per invariant for each run, shows every Check each
// Observation in the order it makes them, from one place, and records a
// violation for each reason a Check returns (an invariant breaks once).
//
// Public face: Invariant, Info, Check, Timer, World, Client, Observation
// and its Kind (Event, Command, Write, Instant), Settings; All, Infos, IDs,
// NameOf; the ids Mutex, Ownership, Liveness, Resource.
//
// A new invariant is one file here: a type that implements Invariant,
// registered from the file's init with its rank.
package invariant

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// Invariant is one property every run is judged on.
type Invariant interface {
	// Info says what it is: its id, its name and its rule in English and
	// Chinese.
	Info() Info
	// New makes its check for one run.
	New(s Settings) Check
}

// Info is what an invariant is, for a reader.
type Info struct {
	ID string
	// Name is its name in both languages: its id in English, "互斥" and so
	// on in Chinese.
	Name text.Text
	Rule text.Text
}

// Settings are what a check may need of the run: the liveness bound
// (Setup.LivenessBound).
type Settings struct {
	LivenessBound time.Duration
}

// A Check judges one invariant in one run. It sees every observation, in
// the order the run makes them, and returns the reason for each violation
// it finds in it. It may keep state across observations.
type Check interface {
	Observe(w World, o Observation) []text.Text
}

// A Timer is a Check whose judgement waits for time to pass: a clock of its
// own runs from Since, and it breaks at Due unless what it waits for comes
// first. The engine moves the run's time to Due, and the explorer's state
// holds Since (two states apart only in it are not one).
type Timer interface {
	Check
	// Since is when its clock started, and whether it runs now; the time
	// stays after the clock stops.
	Since() (time.Duration, bool)
	// Due is when it breaks, if its clock runs and it has not broken yet.
	Due() (time.Duration, bool)
}

// World is what a check may read of the run at an observation.
type World interface {
	// Now is the run's time.
	Now() time.Duration
	// Clients are the run's clients, in the order they were made: a list
	// that is the check's to read during its Observe, not to keep.
	Clients() []Client
	// LockKeyUp says whether the run's lock key (the setup's) is on some
	// server that is up.
	LockKeyUp() bool
}

// Client is what a check may read of a client.
type Client struct {
	Name string
	// Key is the lock's key the client takes (its own, or the run's).
	Key    string
	Belief trace.Belief
	Op     trace.Op
	// Crashed, Paused: its process crashed, or is paused; Hung: its
	// business goroutine is stuck (its watchdog runs on); Reentering: a
	// nested call waits for the lock the client holds itself.
	Crashed, Paused, Hung, Reentering bool
	// Reads: its critical section only reads (a reader of a read-write
	// lock); readers inside together break nothing.
	Reads bool
	// Claim is what its last acquire wrote on the lock's key: the value,
	// or its field of a hash.
	Claim string
}

// Kind is the kind of moment an observation is.
type Kind int

const (
	// Event: an event other than a narration or a violation was recorded;
	// beliefs may have changed.
	Event Kind = iota
	// Command: a command ran on a server and its event was recorded.
	Command
	// Write: a write reached the resource and its event was recorded.
	Write
	// Instant: the instant's due work has run (the keys that expire now,
	// the sleepers that wake now, and what they do before they block
	// again).
	Instant
)

// Observation is a moment the invariants are judged at.
type Observation struct {
	Kind Kind
	// Client is the client whose command ran (Command) or whose write came
	// (Write).
	Client Client
	// A command's changes, the keys before and after it, the command and
	// its error (Command).
	Changes       []narrate.Change
	Before, After []trace.KeyState
	Cmd           redis.Cmder
	Err           error
	// What a write did (Write).
	Write narrate.WriteResult
}

// The ids of the invariants, each in its file.
const (
	Mutex     = "mutex"
	Ownership = "ownership"
	Liveness  = "liveness"
	Resource  = "resource"
)

// registered is an invariant with its place among the others.
type registered struct {
	Invariant
	rank int
}

var all []registered

// register adds an invariant at rank; each invariant's file calls it from
// init.
func register(rank int, inv Invariant) {
	id := inv.Info().ID
	if i := slices.IndexFunc(all, func(o registered) bool { return o.rank == rank || o.Info().ID == id }); i >= 0 {
		panic(fmt.Sprintf("invariant %s: rank %d or id taken by %s", id, rank, all[i].Info().ID))
	}
	all = append(all, registered{inv, rank})
	slices.SortFunc(all, func(a, b registered) int { return cmp.Compare(a.rank, b.rank) })
}

// All lists the invariants, in order: the order of every trace's verdicts.
func All() []Invariant {
	out := make([]Invariant, len(all))
	for i, r := range all {
		out[i] = r.Invariant
	}
	return out
}

// Infos describes the invariants, in order.
func Infos() []Info {
	out := make([]Info, len(all))
	for i, r := range all {
		out[i] = r.Info()
	}
	return out
}

// IDs lists the invariant ids, in order.
func IDs() []string {
	ids := make([]string, len(all))
	for i, r := range all {
		ids[i] = r.Info().ID
	}
	return ids
}

// NameOf is an invariant's name in both languages (its Info's Name), or its
// id in both for an id no invariant has.
func NameOf(id string) text.Text {
	for _, r := range all {
		if inf := r.Info(); inf.ID == id {
			return inf.Name
		}
	}
	return text.Text{EN: id, ZH: id}
}

// findKey is the key k among keys.
func findKey(keys []trace.KeyState, k string) (trace.KeyState, bool) {
	for _, ks := range keys {
		if ks.Key == k {
			return ks, true
		}
	}
	return trace.KeyState{}, false
}
