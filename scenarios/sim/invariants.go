package sim

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
)

// This file is how invariants are judged: each invariant is one file
// (inv_mutex.go, inv_ownership.go, inv_liveness.go, inv_resource.go) that
// registers an Invariant and implements check; the world shows every
// check each observation, from one place (World.observe), and records
// what they find broken.

// Invariant is one property every run is judged on, from observations only
// — beliefs, server contents, what the resource accepted — never from
// knowing which implementation runs.
type Invariant struct {
	ID string
	// Name is its name in both languages: its id in English, "互斥" and so
	// on in Chinese.
	Name text.Text
	Rule text.Text
	// rank places it in Invariants, and so in every trace's verdicts.
	rank int
	// newCheck makes its check for one world.
	newCheck func() check
}

// A check judges one invariant in one world. It sees every observation, in
// the order the world makes them, and returns the reason for each
// violation it finds in it (a check may keep state across observations;
// the world records a violation's invariant broken once).
type check interface {
	observe(w *World, o observation) []text.Text
}

// observation is a moment the invariants are judged at.
type observation struct {
	kind obsKind
	// The client whose command ran (obsCommand) or whose write came
	// (obsWrite).
	client *client
	// A command's changes, the keys before and after it, the command and
	// its error (obsCommand).
	changes       []narrate.Change
	before, after []trace.KeyState
	cmd           redis.Cmder
	err           error
	// What a write did (obsWrite).
	write narrate.WriteResult
}

type obsKind int

const (
	// obsEvent: an event other than a narration or a violation was
	// recorded; beliefs may have changed.
	obsEvent obsKind = iota
	// obsCommand: a command ran on a server and its event was recorded.
	obsCommand
	// obsWrite: a write reached the resource and its event was recorded.
	obsWrite
	// obsInstant: the instant's due work has run (the keys that expire
	// now, the sleepers that wake now, and what they do before they block
	// again).
	obsInstant
)

// Invariants are the registered invariants, in rank order.
var Invariants []Invariant

// register adds an invariant; each invariant's file calls it from init.
func register(inv Invariant) {
	if i := slices.IndexFunc(Invariants, func(o Invariant) bool { return o.rank == inv.rank || o.ID == inv.ID }); i >= 0 {
		panic(fmt.Sprintf("invariant %s: rank %d or id taken by %s", inv.ID, inv.rank, Invariants[i].ID))
	}
	Invariants = append(Invariants, inv)
	slices.SortFunc(Invariants, func(a, b Invariant) int { return cmp.Compare(a.rank, b.rank) })
}

// InvariantName is an invariant's name in both languages (its Name), or
// its id in both for an id no invariant has.
func InvariantName(id string) text.Text {
	if i := slices.IndexFunc(Invariants, func(inv Invariant) bool { return inv.ID == id }); i >= 0 {
		return Invariants[i].Name
	}
	return text.Text{EN: id, ZH: id}
}

// InvariantIDs lists the invariant ids in order.
func InvariantIDs() []string {
	ids := make([]string, len(Invariants))
	for i, inv := range Invariants {
		ids[i] = inv.ID
	}
	return ids
}

// judge keeps the verdicts, and each invariant's check, in the order of
// Invariants.
type judge struct {
	verdicts []trace.Verdict
	checks   []check
}

func newJudge() judge {
	var j judge
	for _, inv := range Invariants {
		j.verdicts = append(j.verdicts, trace.Verdict{Invariant: inv.ID})
		j.checks = append(j.checks, inv.newCheck())
	}
	return j
}

// observe shows every invariant's check an observation, and records each
// violation they find, right after the event that caused it.
func (w *World) observe(o observation) {
	for i, c := range w.judge.checks {
		for _, reason := range c.observe(w, o) {
			w.violate(Invariants[i].ID, reason)
		}
	}
}

// violate records a violation right after the event that caused it.
func (w *World) violate(inv string, text text.Text) {
	text = w.names.canonText(text)
	step := w.record(trace.Event{Kind: trace.KindViolation, Invariant: inv, Text: text, Short: narrate.Same("✗ " + inv)})
	w.judge.broke(inv, step, w.now, text)
}

func (j *judge) broke(id string, step int, t time.Duration, reason text.Text) {
	for i := range j.verdicts {
		if j.verdicts[i].Invariant == id && !j.verdicts[i].Broken {
			j.verdicts[i] = trace.Verdict{Invariant: id, Broken: true, Step: step, T: t, Reason: reason}
		}
	}
}

func (j *judge) isBroken(id string) bool {
	for _, v := range j.verdicts {
		if v.Invariant == id {
			return v.Broken
		}
	}
	return false
}
