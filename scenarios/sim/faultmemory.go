package sim

import (
	"maps"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/explore/view"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// This file is what the faults' moves leave behind for the search to
// remember — a pause that has struck a client, a server restarted, a
// server down until a delayed restart brings it back — kept by the Stepper
// in one memory for every fault, as each fault's record (faultSpec.memory)
// says: whom it remembers, clients or logical nodes, and whether with a
// time. A fault's moves read and write it (struck, strike, strikeUntil);
// view.State shows it (Faults), and the explorer's hash writes it, fault by
// fault, whatever the fault.

// faultMemory is what a fault's record says its moves leave behind.
type faultMemory struct {
	// by is whom it remembers; zero for a fault that remembers nothing.
	by view.Keyed
	// due, when set, makes it a memory of times: each target it has
	// struck is due at a time (strikeUntil). Time may pass to the earliest
	// (Stepper.nextTime); when it does, the fault forgets the target, and
	// due does what comes then (the delayed restart's comeback).
	due func(s *Stepper, target int)
}

// memoryOf is fault f's record, which must keep a memory.
func memoryOf(f trace.Fault) faultMemory {
	i := slices.IndexFunc(faults, func(o faultSpec) bool { return o.Fault == f })
	if i < 0 || faults[i].memory.by == 0 {
		panic("fault " + string(f) + " keeps no memory")
	}
	return faults[i].memory
}

// struck says whether fault f has struck target (a client's index or a
// logical node's, as its record's memory is keyed).
func (s *Stepper) struck(f trace.Fault, target int) bool {
	_, ok := s.memory[f][target]
	return ok
}

// strike remembers that fault f struck target.
func (s *Stepper) strike(f trace.Fault, target int) {
	memoryOf(f)
	s.remember(f, target, 0)
}

// strikeUntil remembers that fault f, whose memory is of times, struck
// target, due at time at.
func (s *Stepper) strikeUntil(f trace.Fault, target int, at time.Duration) {
	if memoryOf(f).due == nil {
		panic("fault " + string(f) + " keeps no times")
	}
	s.remember(f, target, at)
}

func (s *Stepper) remember(f trace.Fault, target int, at time.Duration) {
	if s.memory[f] == nil {
		s.memory[f] = map[int]time.Duration{}
	}
	s.memory[f][target] = at
}

// clientIndex is c's index among the world's clients, as a memory keyed
// by client knows it.
func (s *Stepper) clientIndex(c *model.Client) int { return slices.Index(s.w.Clients, c) }

// nextDue is the earliest time a memory of times holds, if one holds any.
func (s *Stepper) nextDue() (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, f := range faults {
		if f.memory.due == nil {
			continue
		}
		for _, at := range s.memory[f.Fault] {
			if !found || at < best {
				best, found = at, true
			}
		}
	}
	return best, found
}

// comeDue forgets every target whose time has come, fault by fault in
// rank order and target by target, and does what its fault's record says
// comes then.
func (s *Stepper) comeDue() {
	for _, f := range faults {
		if f.memory.due == nil {
			continue
		}
		mem := s.memory[f.Fault]
		for _, target := range slices.Sorted(maps.Keys(mem)) {
			if mem[target] <= s.w.Now {
				delete(mem, target)
				f.memory.due(s, target)
			}
		}
	}
}

// memories are the faults' memories as State shows them: one for every
// fault that keeps one, in rank order, whether or not it has struck.
func (s *Stepper) memories() []view.FaultMemory {
	var out []view.FaultMemory
	for _, f := range faults {
		if f.memory.by == 0 {
			continue
		}
		m := view.FaultMemory{Fault: f.Fault, By: f.memory.by}
		mem := s.memory[f.Fault]
		for _, target := range slices.Sorted(maps.Keys(mem)) {
			x := view.Strike{Target: target}
			if f.memory.due != nil {
				x.DueIn = mem[target] - s.w.Now
			}
			m.Struck = append(m.Struck, x)
		}
		out = append(out, m)
	}
	return out
}
