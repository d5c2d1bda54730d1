// Package trace is the record of a run: every event in order, each with a
// snapshot of the world after it, and one verdict per invariant. The engine
// (package sim) writes a Trace; every front end — the TUI, the reports, the
// web player, the explorer's replays — reads one and nothing else, so a
// trace saved to a file plays exactly as the run did. docs/trace-schema.md
// describes the JSON; Validate checks a trace read from a file.
package trace

import (
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"
)

// Trace is the one product of a run: every event in order, each with a
// snapshot of the world after it. Front ends render traces; nothing renders
// from live state.
type Trace struct {
	// Schema names the trace format, TraceSchema; docs/trace-schema.md
	// describes it.
	Schema   string        `json:"schema"`
	Scenario string        `json:"scenario"`
	Title    text.Text     `json:"title"`
	Impl     string        `json:"impl"`
	Key      string        `json:"key"`
	TTL      time.Duration `json:"ttl_ns"`
	Servers  []string      `json:"servers"`
	// Addrs are the real servers' addresses when the run was recorded on
	// real Redis; empty for embedded runs.
	Addrs []string `json:"addrs,omitempty"`
	// Drift is, on real servers, how unevenly the run kept to its clock, in
	// real time: the most any event was late against the moment the
	// scenario's clock gave it, less the least. Lateness that stays the same
	// is harmless (every lease starts late too); drift beyond the margins a
	// timeline leaves around TTL boundaries (half a scenario second) can
	// change a verdict.
	Drift   time.Duration `json:"drift_ns,omitempty"`
	Clients []string      `json:"clients"`
	Events  []Event       `json:"events"`
	// Verdicts has one entry per invariant, in the order of Invariants.
	Verdicts []Verdict `json:"verdicts"`
	// Schedule, for a run found by the explorer, is how to make it again.
	Schedule *Schedule `json:"schedule,omitempty"`
	// External marks a trace of a lock outside lockstep's catalogue (a
	// user's own, through locktest): Impl names it, and a schedule is shown
	// as recorded, since it cannot be made again without that code.
	External bool `json:"external,omitempty"`
	// Tokens are the values clients wrote that Env.Token did not hand out
	// (a lock's own crypto/rand or UUID tokens), each with the name the
	// rest of the trace shows it by ("A~1"), in the order they came.
	Tokens []RawToken `json:"tokens,omitempty"`
}

// Schedule is a run of a Stepper in the explorer's standard world: how many
// clients, how many acquire attempts each, which faults, and the moves.
// Liveness, Guard and Stock change the world where a search matches a
// lesson's (lockstep check --explore); zero is the standard world's.
type Schedule struct {
	Clients int `json:"clients"`
	// Nodes is how many servers a multi-node lock ran on; none means the
	// explorer's default, three.
	Nodes    int           `json:"nodes,omitempty"`
	Attempts int           `json:"attempts"`
	Faults   []Fault       `json:"faults"`
	Liveness time.Duration `json:"liveness_ns,omitempty"`
	Guard    Guard         `json:"guard,omitempty"`
	Stock    int           `json:"stock,omitempty"`
	// Reenter: each client's critical section takes the lock again
	// (Program.Reenter).
	Reenter bool `json:"reenter,omitempty"`
	// Check: each client checks that it still holds the lock before it
	// writes (Program.Check).
	Check bool `json:"check,omitempty"`
	// Readers: the first Readers clients only read (Program.Read).
	Readers int `json:"readers,omitempty"`
	// Lease: each client passes this lease to its lock explicitly
	// (Program.Lease); none means the TTL, not passed.
	Lease time.Duration `json:"lease_ns,omitempty"`
	Moves []string      `json:"moves"`
}

// TraceSchema is the version of the trace format. It changes when a field
// changes meaning or goes away; new fields may appear without a change.
const TraceSchema = "lockstep.trace/v1"

// Kind says what an event is.
type Kind string

// The kinds of event.
const (
	KindNarration Kind = "narration" // the scenario explains what comes next
	KindCommand   Kind = "command"   // one Redis command and its reply
	KindBelief    Kind = "belief"    // a client's view of the lock changed
	KindResource  Kind = "resource"  // a read or write of the protected data
	KindExpire    Kind = "expire"    // a key's TTL ran out
	KindReplicate Kind = "replicate" // a replica caught up with its primary
	KindFault     Kind = "fault"     // crash, pause, resume, failover
	KindSchedule  Kind = "schedule"  // the scheduler held or let go a client
	KindViolation Kind = "violation" // an invariant broke
)

// Event is one step of a trace.
type Event struct {
	Step  int           `json:"step"`
	T     time.Duration `json:"t_ns"`
	Kind  Kind          `json:"kind"`
	Actor string        `json:"actor,omitempty"`
	// Server, Args, Command and Reply describe a command: the server that
	// served it, its arguments, the redis-cli style line, and the reply.
	Server  string   `json:"server,omitempty"`
	Args    []string `json:"args,omitempty"`
	Command string   `json:"command,omitempty"`
	Reply   string   `json:"reply,omitempty"`
	// Invariant is set on violations.
	Invariant string `json:"invariant,omitempty"`
	// Text says what happened in a sentence; Short in a few words, for
	// compact views (a lane of the TUI's timeline). Narration has no Short.
	Text  text.Text `json:"text"`
	Short text.Text `json:"short,omitzero"`
	Snap  Snapshot  `json:"snapshot"`
}

// Snapshot is the world after an event.
type Snapshot struct {
	Servers  []ServerState `json:"servers"`
	Clients  []ClientState `json:"clients"`
	Resource ResourceState `json:"resource"`
}

// ServerState is one Redis server.
type ServerState struct {
	Name      string `json:"name"`
	Role      string `json:"role"` // primary, replica, or node (Redlock)
	Up        bool   `json:"up"`
	ReplicaOf string `json:"replica_of,omitempty"`
	// Lag is how far a replica trails its primary; Pending counts the
	// writes it has not received yet.
	Lag     time.Duration `json:"lag_ns,omitempty"`
	Pending int           `json:"pending,omitempty"`
	// ClockAhead is how far the server's clock has jumped ahead of the
	// world's.
	ClockAhead time.Duration `json:"clock_ahead_ns,omitempty"`
	Keys       []KeyState    `json:"keys"`
}

// KeyState is one key on one server.
type KeyState struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value string `json:"value"` // a hash shows as field=value pairs
	// TTL is the time left, or -1 when the key does not expire.
	TTL time.Duration `json:"ttl_ns"`
	// Writer is the client whose command last set the value.
	Writer string `json:"writer,omitempty"`
}

// Belief is what a client thinks about the lock.
type Belief string

// The beliefs.
const (
	BeliefIdle     Belief = "idle"     // not started
	BeliefWaiting  Belief = "waiting"  // trying to acquire
	BeliefHolds    Belief = "holds"    // believes it holds the lock
	BeliefLost     Belief = "lost"     // its watchdog told it the lock is gone
	BeliefReleased Belief = "released" // gave the lock back, finished
	BeliefGaveUp   Belief = "gave-up"  // stopped trying
)

// ClientState is one client process.
type ClientState struct {
	Name    string `json:"name"`
	Belief  Belief `json:"belief"`
	Op      Op     `json:"op"`
	Token   string `json:"token,omitempty"`
	Fence   int64  `json:"fence,omitempty"`
	Paused  bool   `json:"paused,omitempty"`
	Crashed bool   `json:"crashed,omitempty"`
	Held    bool   `json:"held,omitempty"`
	Hung    bool   `json:"hung,omitempty"`
	// ReadLock: the client's lock is a read-write lock's read lock, so
	// what it holds it shares with other readers.
	ReadLock bool `json:"read_lock,omitempty"`
}

// ResourceState is the protected data.
type ResourceState struct {
	Name     string `json:"name"`
	Value    int    `json:"value"`
	Version  int    `json:"version"`
	MaxFence int64  `json:"max_fence,omitempty"`
	Rejected int    `json:"rejected,omitempty"`
}

// Verdict is the outcome of one invariant over a run.
type Verdict struct {
	Invariant string        `json:"invariant"`
	Broken    bool          `json:"broken"`
	Step      int           `json:"step,omitempty"` // the violation event
	T         time.Duration `json:"t_ns,omitempty"`
	Reason    text.Text     `json:"reason,omitzero"`
}

// Broken lists the invariants that broke, in invariant order.
func (t *Trace) Broken() []string {
	var ids []string
	for _, v := range t.Verdicts {
		if v.Broken {
			ids = append(ids, v.Invariant)
		}
	}
	return ids
}

// Verdict returns the verdict of invariant id.
func (t *Trace) Verdict(id string) Verdict {
	for _, v := range t.Verdicts {
		if v.Invariant == id {
			return v
		}
	}
	return Verdict{Invariant: id}
}

// SplitActor says whose an event's actor is. An actor is a client's own
// goroutine ("A"), a goroutine it started through Env.Go, named after its
// purpose ("A.watchdog"), or a command sent from a goroutine the lock code
// started itself, named after the node it went to ("A/redis-3", a flight).
// background says the actor is a goroutine of the first kind beside the
// client's own (a watchdog); flight, of the second.
func SplitActor(actor string) (client string, background, flight bool) {
	i := strings.IndexAny(actor, "./")
	if i < 0 {
		return actor, false, false
	}
	return actor[:i], strings.Contains(actor, "."), strings.Contains(actor, "/")
}

// Op is a stage of a client's program, or a watchdog's renewal.
type Op string

// The stages of a program.
const (
	OpStart   Op = "start"
	OpPrep    Op = "prep"
	OpAcquire Op = "acquire"
	OpRead    Op = "read"
	OpWork    Op = "work"
	OpWrite   Op = "write"
	// OpCheck: before its write, the client checks that it still holds
	// the lock (Program.Check).
	OpCheck   Op = "check"
	OpFail    Op = "fail"
	OpRelease Op = "release"
	OpRenew   Op = "renew"
	OpDone    Op = "done"
	// A nested call takes the lock again (OpReenter) and gives it back
	// (OpLeave) inside the critical section.
	OpReenter Op = "reenter"
	OpLeave   Op = "leave"
)

// Fault names a kind of move a Stepper may offer besides client steps and
// the passing of time.
type Fault string

// RawToken is a value a client wrote that Env.Token did not hand out, and
// the name the trace shows it by.
type RawToken struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Fields are a hash key's field=value pairs as Value writes them, split at
// each pair's last "=": values are counts, while a field, a base64 token,
// may end in "=". A string's value is one field with no value.
func (k KeyState) Fields() [][2]string {
	var out [][2]string
	for _, pair := range strings.Fields(k.Value) {
		f, v := CutField(pair)
		out = append(out, [2]string{f, v})
	}
	return out
}

// CutField splits a hash's "field=value" pair as KeyState.Value joins it at its last "=": values here are counts, while a field,
// a base64 token, may end in "=".
func CutField(pair string) (field, value string) {
	i := strings.LastIndexByte(pair, '=')
	if i < 0 {
		return pair, ""
	}
	return pair[:i], pair[i+1:]
}
