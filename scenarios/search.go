package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// Search is how lockstep check --explore searches a lesson's failure mode
// with the explorer: the explorer's world (two or three identical clients,
// a lease of explore.TTL) with the faults that match the lesson's timeline
// and the lesson's own liveness bound, guard and stock. A lesson's
// "explore" line sets it; without one, it follows from the timeline (see
// deriveSearch).
type Search struct {
	Faults  []trace.Fault
	Clients int
	// Nodes is how many servers Redlock's searches run on: 0 (the
	// explorer's three) or 5. The lessons run it on five; the searches of
	// the built-in ones keep to three, where the same counterexamples are
	// shorter and within the state budget (docs/explore.md).
	Nodes    int
	Attempts int
	Depth    int
	// Liveness is the lesson's liveness bound, in the explorer's time: the
	// same multiple of the lease.
	Liveness time.Duration
	// Reenter: the lesson's clients take the lock again inside their
	// critical sections.
	Reenter bool
	// Check: the lesson's clients check that they still hold the lock
	// before they write.
	Check bool
	// Readers: how many of the search's clients only read, as the
	// lesson's readers do: as many as the lesson has, and one client of
	// the search writes.
	Readers int
	// Lease: a lease the explorer's clients pass to the lock themselves,
	// the shortest a lesson's client passes, in the explorer's time (the
	// same part of the lease); 0: none.
	Lease time.Duration
	// Lacks names what the lesson's timeline does that the search has no
	// move for (partition, slow, rejoin, …): where the two
	// disagree, the first place to look.
	Lacks []string
}

// DefaultSearchDepth bounds a lesson's search unless its explore line says.
const DefaultSearchDepth = 12

// SearchBudget bounds every lesson's search in states (explore.Options'
// MaxStates): the searches of lockstep check --explore take minutes, not
// hours, and give the same table on every machine.
const SearchBudget = 2500

// smallBudgets are the implementations whose searches get a tenth of the
// budget. redsync-redlock asks its nodes from goroutines of its own: every
// order in which the replies come is a move, so its states outnumber
// uuid-lua's some forty to one at the same depth. The tenth was set when
// each of its states also cost some forty times as much (the engine read
// goroutine dumps to learn that such a run had gone quiet); in bubbles they
// cost about what Redlock's do, and the budget stays, so that the check
// --explore table stays as docs/explore.md explains it.
var smallBudgets = map[string]bool{"redsync-redlock": true}

// Budget is the state budget of impl's searches.
func Budget(impl string) int {
	if smallBudgets[impl] {
		return SearchBudget / 10
	}
	return SearchBudget
}

// Options are the explorer's options for the search against impl.
func (s Scenario) Options(impl string) explore.Options {
	q := s.Search
	o := explore.Options{Clients: q.Clients, Attempts: q.Attempts, Faults: q.Faults, Depth: q.Depth,
		Liveness: q.Liveness, Guard: s.Setup.Guard, Stock: s.Setup.Stock, Reenter: q.Reenter, Check: q.Check, Readers: q.Readers, Lease: q.Lease, MaxStates: Budget(impl)}
	if in, err := lockimpl.Lookup(impl); err == nil && in.Nodes > 1 {
		o.Nodes = q.Nodes
	}
	return o
}

// Command is the explore command line that makes the search by hand.
func (s Scenario) Command(impl string) string {
	q, o := s.Search, s.Options(impl)
	var b strings.Builder
	fmt.Fprintf(&b, "lockstep explore --impl %s --clients %d --attempts %d --faults %s --depth %d --liveness %s --max-states %d",
		impl, q.Clients, q.Attempts, faultList(q.Faults), q.Depth, q.Liveness, o.MaxStates)
	if o.Nodes != 0 && o.Nodes != explore.DefaultNodes {
		fmt.Fprintf(&b, " --nodes %d", o.Nodes)
	}
	if o.Guard != trace.GuardNone {
		fmt.Fprintf(&b, " --guard %s", o.Guard)
	}
	if o.Stock != 0 {
		fmt.Fprintf(&b, " --stock %d", o.Stock)
	}
	if o.Reenter {
		b.WriteString(" --reenter")
	}
	if o.Check {
		b.WriteString(" --check")
	}
	if o.Readers > 0 {
		fmt.Fprintf(&b, " --readers %d", o.Readers)
	}
	if o.Lease > 0 {
		fmt.Fprintf(&b, " --lease %s", o.Lease)
	}
	return b.String()
}

func faultList(fs []trace.Fault) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ",")
}

// deriveSearch is a lesson's search when its file has no explore line:
//   - faults: expiry, and the explorer's move for each fault verb of the
//     timeline (as the fault's record says: sim.LessonVerb.Search); a client whose work outlasts its lease adds hang — to the
//     explorer a live holder finishes within its lease, and a hung call
//     (its process, a watchdog, runs on) is what lifts that rule;
//   - clients: two, the explorer's standard pair (a lesson's explore line
//     asks for three where its failure needs a third); attempts: as many as a waiter
//     needs to wait out the liveness bound, retrying every half lease, and
//     one more to be still waiting when it runs out (at most
//     explore.MaxAttempts), or one when every client of the lesson tries
//     once or the bound is under half a lease;
//   - liveness: the lesson's bound as the same multiple of the lease;
//   - a lease its clients pass (client … lease=D): the shortest, as the
//     same part of the explorer's lease, for every client of the search.
func (p *lessonParser) deriveSearch() Search {
	q := Search{Faults: []trace.Fault{sim.FaultExpiry}, Clients: explore.MinClients, Depth: DefaultSearchDepth}
	setup := p.s.Setup.WithDefaults()
	q.Liveness = time.Duration(float64(setup.LivenessBound) / float64(setup.TTL) * float64(explore.TTL))
	add := func(f trace.Fault) {
		if !slices.Contains(q.Faults, f) {
			q.Faults = append(q.Faults, f)
		}
	}
	once := true
	for _, prog := range p.progs {
		lease := setup.TTL
		if prog.Lease > 0 {
			// The explorer's clients pass the same part of their lease.
			lease = prog.Lease
			scaled := time.Duration(float64(lease) / float64(setup.TTL) * float64(explore.TTL)).Round(time.Millisecond)
			if q.Lease == 0 || scaled < q.Lease {
				q.Lease = max(scaled, explore.MinLease)
			}
		}
		if prog.Work >= lease {
			add(sim.FaultHang)
		}
		if prog.Key != "" && !slices.Contains(q.Lacks, "key") {
			// The explorer's clients take one lock.
			q.Lacks = append(q.Lacks, "key")
		}
		q.Reenter = q.Reenter || prog.Reenter
		q.Check = q.Check || prog.Check
		if prog.Read {
			q.Readers++
		}
		once = once && prog.Attempts == 1
	}
	for _, name := range p.used {
		// What each fault verb makes of the search, as its record says.
		switch v := faultVerbs[name]; v.Search {
		case sim.SearchFault:
			add(v.Fault)
		case sim.SearchLacks, sim.SearchAsked:
			if !slices.Contains(q.Lacks, name) {
				q.Lacks = append(q.Lacks, name)
			}
		}
	}
	slices.SortFunc(q.Faults, func(a, b trace.Fault) int { return slices.Index(sim.Faults, a) - slices.Index(sim.Faults, b) })
	if slices.Contains(q.Faults, sim.FaultHang) {
		// The stale write of a call that returns after its lease ran out
		// is 13 moves in: hang, time, the other's acquire, the return.
		q.Depth = 14
	}
	q.Attempts = 1
	if n := int(q.Liveness / (explore.TTL / 2)); !once && n > 0 {
		// n retries half a lease apart reach the bound itself; the search
		// judges liveness once that instant's work has run, so the waiter
		// that gives up there breaks nothing. One more outlasts it.
		q.Attempts = min(n+2, explore.MaxAttempts)
	}
	return q
}

// exploreLine reads a lesson's explore line over the derived search:
// explore [faults=LIST] [clients=N] [nodes=N] [attempts=N] [depth=N]
// [liveness=D].
func (p *lessonParser) exploreLine(l line) error {
	vals, at, err := p.args(l, 1, "faults", "clients", "nodes", "attempts", "depth", "liveness")
	if err != nil {
		return err
	}
	p.explore = &exploreArgs{l: l, vals: vals, at: at}
	return nil
}

type exploreArgs struct {
	l    line
	vals map[string]string
	at   map[string]int
}

// applyExplore sets what the explore line gives over q.
func (p *lessonParser) applyExplore(q *Search) error {
	e := p.explore
	if e == nil {
		return nil
	}
	for k, v := range e.vals {
		f := e.at[k]
		switch k {
		case "faults":
			q.Faults = nil
			for name := range strings.SplitSeq(v, ",") {
				if !slices.Contains(sim.Faults, trace.Fault(name)) {
					return p.errAt(e.l, f, "%s", unknown(text.New("fault", "故障"), name, faultNames()))
				}
				q.Faults = append(q.Faults, trace.Fault(name))
			}
		case "liveness":
			d, err := p.duration(e.l, f, v)
			if err != nil {
				return err
			}
			q.Liveness = d
		default:
			n, err := strconv.Atoi(v)
			if err != nil {
				return p.errAt(e.l, f, "%s: want a whole number, got %q", k, v)
			}
			switch k {
			case "clients":
				q.Clients = n
			case "nodes":
				q.Nodes = n
			case "attempts":
				q.Attempts = n
			case "depth":
				q.Depth = n
			}
		}
	}
	o := explore.Options{Clients: q.Clients, Nodes: q.Nodes, Attempts: q.Attempts, Faults: q.Faults, Depth: q.Depth, Liveness: q.Liveness}
	if err := o.Validate(); err != nil {
		return p.errAt(e.l, 1, "%s", strings.ReplaceAll(err.Error(), "--", ""))
	}
	return nil
}

// faultNames are the names of the faults a search may inject
// (sim.Faults), as an unknown one's error lists them.
func faultNames() []string {
	names := make([]string, len(sim.Faults))
	for i, f := range sim.Faults {
		names[i] = string(f)
	}
	return names
}
