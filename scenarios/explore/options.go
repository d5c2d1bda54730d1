package explore

// This file is what a search is asked for: its Options, their defaults and
// bounds, and the checks of options and of a schedule read from a file
// (Validate, ValidateSchedule). The search itself is in explore.go.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"
)

// Options bound and shape a search.
type Options struct {
	// Clients is how many clients take part: 2 (default) or 3.
	Clients int
	// Nodes is how many servers a multi-node implementation (Redlock) runs
	// on: 3 (default, a majority of two) or 5, the deployment Redlock's
	// authors describe (a majority of three). Single-server
	// implementations ignore it.
	Nodes int
	// Attempts is how many times each client tries to acquire, every half
	// TTL; 1 (default) means no retry.
	Attempts int
	// Faults are the moves allowed besides client steps; default expiry.
	Faults []trace.Fault
	// Liveness is how long a client may wait while no live client holds
	// the lock; default TTL.
	Liveness time.Duration
	// Guard is the resource's own check on every write (none by default),
	// and Stock its starting value (default 100), as a lesson's setup
	// gives them.
	Guard trace.Guard
	Stock int
	// Reenter makes each client's critical section call code that takes
	// the same lock again, as a lesson's "client … reenter" does.
	Reenter bool
	// Check makes each client check that it still holds the lock before it
	// writes, as a lesson's "client … check" does.
	Check bool
	// Readers makes the first Readers clients readers, as a lesson's
	// "client … read" does: they take a read-write lock's read lock and
	// write nothing; at least one client writes.
	Readers int
	// Lease is a lease each client passes to its lock explicitly, as a
	// lesson's "client … lease=D" does; 0: none.
	Lease time.Duration
	// Depth bounds a schedule's length in moves; default DefaultDepth.
	Depth int
	// Timeout bounds the search's wall-clock time; 0 means none. A search
	// stopped by it says so, and how deep it got.
	Timeout time.Duration
	// MaxStates, when set, stops the search once it has seen more than that
	// many states (within a chunk of a level, expanded in order): a bound
	// on its work that, unlike Timeout, gives the same result on every
	// machine. Depth then counts the levels searched whole.
	MaxStates int
	// Progress, when set, is called now and then during the search.
	Progress func(Progress)
	// First stops the search at the first level that breaks an invariant.
	First bool
	// Named keeps states apart that differ only in which client is which.
	// By default they count as one (Hash): the clients run the
	// same program, so such states have the same futures up to the names,
	// and a search with three clients has up to six times fewer states.
	// Set it for an implementation whose behaviour depends on its client's
	// name or its token's spelling.
	Named bool
	// Prefix, when set, starts the search from the state these moves lead
	// to (the sandbox's hint); Depth then counts the moves after it.
	Prefix []string
}

// budgetChunk is how many nodes of a level a search with a state budget
// expands before it looks at the budget again.
const budgetChunk = 64

// Key names the search o asks for: options with the same key search the
// same world to the same bounds, and find the same — a stock of 0 is the
// world's default stock, 100, for one (the lessons that leave the stock to
// the world, and oversell, which says 100). What o reports its progress
// to is no part of it.
func (o Options) Key() string {
	o = o.withDefaults()
	o.Stock = sim.Setup{Stock: o.Stock}.WithDefaults().Stock
	o.Progress = nil
	return fmt.Sprintf("%+v", o)
}

func (o Options) withDefaults() Options {
	if o.Clients == 0 {
		o.Clients = 2
	}
	if o.Attempts == 0 {
		o.Attempts = 1
	}
	if o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	if o.Faults == nil {
		o.Faults = []trace.Fault{sim.FaultExpiry}
	}
	if o.Depth == 0 {
		o.Depth = DefaultDepth
	}
	return o
}

// The bounds of the explorer's world, for a search and for a schedule read
// from a trace file alike.
const (
	MinClients, MaxClients = 2, 3
	MaxAttempts            = 12
	// DefaultNodes is how many servers Redlock runs on in a search unless
	// told otherwise; the other choice is five.
	DefaultNodes = 3
	// MaxMoves bounds a schedule's length: a search's depth, and the moves
	// a trace file may ask Replay to make (each builds on the last, and a
	// search of even 30 takes minutes).
	MaxMoves = 1000
)

// Validate reports options that cannot be searched.
func (o Options) Validate() error {
	o = o.withDefaults()
	switch {
	case o.Clients < MinClients || o.Clients > MaxClients:
		return fmt.Errorf("--clients must be %d or %d, not %d", MinClients, MaxClients, o.Clients)
	case o.Attempts < 1 || o.Attempts > MaxAttempts:
		return fmt.Errorf("--attempts must be 1 to %d, not %d", MaxAttempts, o.Attempts)
	case !validNodes(o.Nodes):
		return fmt.Errorf("--nodes must be 3 or 5, not %d", o.Nodes)
	case o.Depth < 1 || o.Depth > MaxMoves:
		return fmt.Errorf("--depth must be 1 to %d, not %d", MaxMoves, o.Depth)
	case o.Readers < 0 || o.Readers >= o.Clients:
		return fmt.Errorf("--readers must be 0 to %d (one client writes), not %d", o.Clients-1, o.Readers)
	case o.MaxStates < 0 || o.MaxStates > MaxStatesBound:
		return fmt.Errorf("--max-states must be 0 (no bound) to %d (the memory bound), not %d", MaxStatesBound, o.MaxStates)
	}
	for _, f := range o.Faults {
		if !slices.Contains(sim.Faults, f) {
			return errors.New(suggest.Unknown(faultWord, string(f), faultNames()).EN)
		}
	}
	if err := validLease(o.Lease, "--"); err != nil {
		return err
	}
	return validWorld(o.Liveness, o.Guard, o.Stock, "--")
}

// MinLease is the shortest lease a client may pass, as Redis counts a PX
// lease in whole milliseconds; MaxLease the longest, the TTL's bound.
const (
	MinLease = time.Millisecond
	MaxLease = time.Hour
)

// validLease reports a client's lease out of bounds, naming it with prefix.
func validLease(lease time.Duration, prefix string) error {
	if lease != 0 && (lease < MinLease || lease > MaxLease) {
		return fmt.Errorf("%slease: %s, want 0 (none) or %s to %s", prefix, lease, MinLease, MaxLease)
	}
	return nil
}

// validNodes reports whether Redlock can run on n servers in a search: three
// or five. An even count adds a server that a majority needs anyway.
func validNodes(n int) bool { return n == 3 || n == 5 }

// MaxLiveness and MaxStock bound the world a search may ask for.
const (
	MaxLiveness = 10 * time.Minute
	MaxStock    = 1_000_000
)

// validWorld reports a liveness bound, guard or stock out of bounds, naming
// it with prefix: "--" for a search's options, "schedule." for a file's.
func validWorld(liveness time.Duration, guard trace.Guard, stock int, prefix string) error {
	switch {
	case liveness < 0 || liveness > MaxLiveness:
		return fmt.Errorf("%sliveness: %s, want 0 (the TTL) to %s", prefix, liveness, MaxLiveness)
	case stock < 0 || stock > MaxStock:
		return fmt.Errorf("%sstock: %d, want 0 (100) to %d", prefix, stock, MaxStock)
	case guard != trace.GuardNone && !slices.Contains(trace.Guards, guard):
		return fmt.Errorf("%sguard: %s", prefix, suggest.Unknown(guardWord, string(guard), guardNames()).EN)
	}
	return nil
}

// ValidateSchedule reports a schedule outside the explorer's bounds — its
// clients, attempts, faults and number of moves — naming the field
// ("schedule.clients: -3, want 2 or 3"). Replay checks it first: a schedule
// read from a file builds a world of that many clients.
func ValidateSchedule(s *trace.Schedule) error {
	if s == nil {
		return errors.New("schedule: none to replay")
	}
	if s.Clients < MinClients || s.Clients > MaxClients {
		return fmt.Errorf("schedule.clients: %d, want %d or %d", s.Clients, MinClients, MaxClients)
	}
	if s.Attempts < 1 || s.Attempts > MaxAttempts {
		return fmt.Errorf("schedule.attempts: %d, want 1 to %d", s.Attempts, MaxAttempts)
	}
	if s.Readers < 0 || s.Readers >= s.Clients {
		return fmt.Errorf("schedule.readers: %d, want 0 to %d", s.Readers, s.Clients-1)
	}
	if s.Nodes != 0 && !validNodes(s.Nodes) {
		return fmt.Errorf("schedule.nodes: %d, want 3 or 5 (none: 3)", s.Nodes)
	}
	for i, f := range s.Faults {
		if !slices.Contains(sim.Faults, f) {
			return fmt.Errorf("schedule.faults[%d]: %s", i, suggest.Unknown(faultWord, string(f), faultNames()).EN)
		}
	}
	if len(s.Moves) > MaxMoves {
		return fmt.Errorf("schedule.moves: %d moves, the most is %d", len(s.Moves), MaxMoves)
	}
	if err := validLease(s.Lease, "schedule."); err != nil {
		return err
	}
	return validWorld(s.Liveness, s.Guard, s.Stock, "schedule.")
}

// The words for the names Validate checks, and the valid ones.
var (
	faultWord = text.New("fault", "故障")
	guardWord = text.New("guard", "防护")
)

func faultNames() []string {
	names := make([]string, len(sim.Faults))
	for i, f := range sim.Faults {
		names[i] = string(f)
	}
	return names
}

func guardNames() []string {
	names := make([]string, len(trace.Guards))
	for i, g := range trace.Guards {
		names[i] = string(g)
	}
	return names
}
