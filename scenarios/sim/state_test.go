package sim

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"
	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/fleet"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// notInState lists, for every type whose fields make up a Stepper's world,
// the fields State leaves out, and why. Every other field is in the view:
// TestStateSeesEveryField changes it and expects the view to change. A field
// a type gains is in neither list until someone says which it is: the
// explorer's search is only sound if what tells a state apart is in its
// hash (package explore, Hash).
var notInState = map[string]map[string]string{
	"Sched": {
		"W":          "the world it belongs to",
		"Deferred":   "",
		"Ch":         "the scheduler's plumbing: empty at every state the explorer sees",
		"pending":    "flights that reached the gate are actors by the end of a move (Actors)",
		"flights":    "says the lock sends from goroutines of its own: the same in every state of a lock",
		"loose":      "a flight's goroutine may run: settled before a move ends",
		"fanRunning": "Env.Fan calls running lock code: settled before a move ends",
		"Bub":        "the bubble the world runs in",
		"Inbox":      "messages received while time passed: handled before a move ends",
		"Watch":      "the stall watch: who ran last, a stall (a search stops there), the pacer's calls, the bound (the same in every state)",
		"Goroutines": "goroutine ids and labels, and the world's id in the process: for a stall's error and the gate",
		"Actors":     "", "Queue": "",
		"running": "the running actors: none between moves",
	},
	"Fleet": {
		"Host":    "the world it belongs to",
		"Setup":   "the run's setup: the same in every state of a search",
		"Servers": "", "Route": "", "Repl": "",
		"ReplSeq":      "replication entries ever queued, WAIT's counter: WaitAhead says what a WAIT still waits for",
		"Promoting":    "",
		"PromoteAt":    "",
		"Sentinel":     "real runs' Sentinels: the explorer runs embedded servers",
		"sentinelSaid": "real runs' Sentinels",
		"diedAt":       "real runs' Sentinels",
	},
	"ActorSide": {
		"W":       "the world it belongs to",
		"Done":    "the scheduler's plumbing",
		"closing": "the scheduler's plumbing: false until the world closes",
	},
	"Wall": {
		"W":     "the world it belongs to",
		"Real":  "real runs only",
		"Pacer": "a live run's pacer: the explorer has none",
	},
	"World": {
		"Setup":        "the run's setup: the same in every state of a search",
		"Impl":         "the lock: the same in every state of a search",
		"Act":          "the actors' side: its fields are listed under actorSide",
		"inflight":     "the scheduler's plumbing: zero between moves",
		"Err":          "what stopped the run: a search stops there",
		"Commands":     "counts for the verdict of a run whose every command failed (Served)",
		"Failed":       "counts for the verdict of a run whose every command failed (Served)",
		"firstFailed":  "what the no-verdict error names",
		"LockCalls":    "counts for the verdict of a run whose every call failed (Served)",
		"LockErrs":     "counts for the verdict of a run whose every call failed (Served)",
		"firstLockErr": "what the no-verdict error names",
		"Now":          "State's times are relative to it: two states apart only in when they happen are one",
		"Clients":      "",
		"Sched":        "the scheduler's side: its fields are listed under sched",
		"Res":          "", "Judge": "",
		"rows":     "clients' own keys' rows (Program.Key): lessons only, not the explorer's programs",
		"Trace":    "the record of the run: what it shows follows from the moves, and two schedules to one state have different traces",
		"Names":    "the trace's names for the lock's own tokens",
		"PausedAt": "when a pause began, for the resume's narration",
		"Wall":     "the run's relation to the wall clock: its fields are listed under wall",
		"Ctx":      "the run's context",
		"closed":   "true once the world has closed",
		"Fleet":    "the run's servers: their fields are listed under fleet",
	},
	"Client": {
		"Name": "", "Token": "", "Count": "", "Claim": "", "Belief": "", "Op": "", "Fence": "", "Lost": "",
		"Paused": "", "Crashed": "", "Hung": "", "Reentering": "", "Cut": "", "Mute": "", "Attempts": "",
		"ReadVal": "", "ReadVer": "",
		"Prog":        "its program: the same in every state (Alike says whether all clients run the same)",
		"Rdb":         "its go-redis clients",
		"ClaimField":  "whether Claim is a hash's field: follows from the type of the lock's key the client wrote, which the servers' keys show",
		"Shares":      "whether its lock is a read lock: follows from its program (Prog.Read) and the implementation, the same in every state",
		"Conn":        "which server each connection goes to: follows from the route and the servers up",
		"Lock":        "the lock's own state, hidden: assumed to follow from the rest (the keys it wrote, the commands it sends)",
		"Biz":         "its business actor (in Actors)",
		"Spawned":     "how many actors Env.Go started for it: they are in Actors",
		"Minted":      "Env.Token's draws as lock code makes them: token and count, taken from it, are the scheduler's copy",
		"Key":         "the lock's key it takes: the setup's, in the explorer",
		"HungAt":      "when its hang began, for the unhang's narration",
		"NestedKey":   "whether the key was there at a nested acquire, for the inner release's narration",
		"Jitter":      "the jitter's draws follow from its name and its attempts (Alike is false with jitter)",
		"WantSince":   "when its wait began, for the give-up's narration (liveness's clock is the judge's)",
		"AcqCmds":     "commands its wait sent, for the give-up's narration",
		"RelCmds":     "commands its release sent, for the release's narration",
		"AttemptFrom": "where its attempt begins in the trace, for Redlock's quorum narration",
	},
	"Actor": {
		"Name": "", "Client": "", "Flight": "", "State": "", "Park": "", "Point": "", "Held": "", "Sent": "",
		"Orphan": "", "Cmd": "", "Node": "", "Deadline": "", "Woke": "", "Watching": "", "WatchedAt": "", "WaitFor": "",
		"ID":        "creation order: the order of Actors",
		"Bg":        "a goroutine of Env.Go: its name says so (A.watchdog)",
		"Fan":       "a flight of Env.Fan: how the lock sends, the same in every state of a lock",
		"Parent":    "the actor a flight's lock call runs in: its name names the client",
		"InCmd":     "its command's reply is on its way: at the end of a move only to a slow server, where the actor sleeps (OnItsWay)",
		"SentAt":    "when it left for a slow server, for the narration",
		"GaveUp":    "when its client stopped waiting, for the narration",
		"Resume":    "the scheduler's channel to it",
		"Op":        "its client's op (ClientView.Op) for the business goroutine, its parent's for a flight",
		"Hold":      "a scripted hold: the Stepper sets none",
		"WaitReply": "a WAIT's answer, set as it wakes",
		"WaitErr":   "a WAIT's answer, set as it wakes",
	},
	"Server": {
		"Name": "", "Up": "", "Role": "", "Replica": "", "Primary": "", "Keys": "", "Ahead": "", "Latency": "",
		"B":       "its backend",
		"Lag":     "its replica's lag: the setup's",
		"ReadAt":  "real servers only",
		"Scripts": "the scripts the run loaded: an EVALSHA's NOSCRIPT follows from the restarts (the restart's memory, State.Faults) and the commands sent",
	},
	"Resource": {
		"Value": "", "Version": "", "MaxFence": "", "Rejected": "", "Owner": "", "Sold": "",
		"Guard":   "the store's guard: the setup's (TokenGuard says whether Owner counts)",
		"Name":    "its name: the setup's",
		"initial": "its first value: the setup's",
		"written": "some write came, for the narration: Version and Rejected say it",
		"writers": "who wrote, for the lost update's narration",
	},
	"Judge": {
		"Verdicts": "",
		"Checks":   "each invariant's check: their state is listed under their own types",
		"Clients":  "the checks' view's list of the clients, rebuilt at every observation",
	},
	"mutexCheck": {
		"pairs": "holder pairs already reported: a verdict breaks once (Broken)",
	},
	"livenessCheck": {"orphan": "", "since": "",
		"bound":  "the liveness bound: the same in every state of a search",
		"broken": "the liveness verdict's Broken, which State holds (Verdicts)"},
	"ReplEntry": {
		"Due": "", "Replica": "", "Key": "", "Deleted": "", "State": "", "ExpireAt": "",
		"Seq":   "order of queuing, for WAIT: WaitAhead counts by it",
		"Value": "the whole value for the replica: State shows it as the snapshot has it (Value)",
	},
	"ownershipCheck": {},
	"resourceCheck":  {},
	"Stepper": {
		"w": "", "memory": "", "lease": "",
		"faults":   "the faults enabled: the same in every state of a search",
		"schedule": "the moves that led here: two schedules to one state are one state",
	},
}

// Every field of the world is in notInState, one way or the other.
func TestEveryWorldFieldIsListed(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, v := range []any{engine.World{}, engine.Sched{}, fleet.Fleet{}, engine.ActorSide{}, engine.Wall{}, model.Client{}, model.Actor{}, model.Server{}, model.Resource{}, model.Judge{}, model.ReplEntry{}, Stepper{}} {
		types[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	// Each invariant's check keeps state of its own in the world.
	for _, inv := range invariant.All() {
		typ := reflect.TypeOf(inv.New(invariant.Settings{}))
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		types[typ.Name()] = typ
	}
	for name, typ := range types {
		listed := notInState[name]
		if listed == nil {
			t.Errorf("type %s is not in notInState", name)
			continue
		}
		for i := range typ.NumField() {
			f := typ.Field(i).Name
			if _, ok := listed[f]; !ok {
				t.Errorf("%s.%s is neither in State nor listed as left out (notInState): say which, and why", name, f)
			}
		}
		for f := range listed {
			if _, ok := typ.FieldByName(f); !ok {
				t.Errorf("notInState lists %s.%s, which is gone", name, f)
			}
		}
	}
}

// Every scalar field State holds changes the view when it changes, in some
// state of a short run.
func TestStateSeesEveryField(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range []string{"uuid-lua", "redlock"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStepper(model.Setup{}, []model.Program{{Attempts: 2}, {Attempts: 2}}, in, []trace.Fault{FaultExpiry, FaultPause})
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 14; step++ {
			s.w.Sched.In(func() {
				s.w.Fleet.Repl = append(s.w.Fleet.Repl, model.ReplEntry{})
				s.mutateEach(func(path string, changed bool) {
					seen[path] = seen[path] || changed
				})
				s.w.Fleet.Repl = s.w.Fleet.Repl[:len(s.w.Fleet.Repl)-1]
				s.mutateMemory(func(path string, changed bool) {
					seen[path] = seen[path] || changed
				})
			})
			moves := s.Moves()
			if len(moves) == 0 {
				break
			}
			if err := s.Do(moves[len(moves)/2].ID); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
	for _, path := range slices.Sorted(maps.Keys(seen)) {
		if !seen[path] {
			t.Errorf("%s is in State by notInState, but changing it never changed the view", path)
		}
	}
}

// mutateEach changes, one at a time, every scalar field of the world that
// State holds (by notInState), reads the view, and puts the field back.
func (s *Stepper) mutateEach(report func(path string, changed bool)) {
	before := s.State()
	check := func(typ string, v reflect.Value) {
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if notInState[typ][name] != "" || name == "Name" && (typ == "Actor" || typ == "Client") {
				// A name is set when its actor or client is made and read
				// from its goroutines with no lock (profiler labels): a
				// write here would race them. Package explore's test
				// changes the names in the view (ClientView.Name,
				// ActorView.Name).
				continue
			}
			f := v.Field(i)
			f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			old := reflect.ValueOf(f.Interface())
			if !mutate(f) {
				continue
			}
			report(typ+"."+name, !reflect.DeepEqual(before, s.State()))
			f.Set(old)
		}
	}
	w := s.w
	check("World", reflect.ValueOf(w).Elem())
	check("Resource", reflect.ValueOf(&w.Res).Elem())
	check("Judge", reflect.ValueOf(&w.Judge).Elem())
	for _, c := range w.Judge.Checks {
		if _, ok := c.(invariant.Timer); ok {
			check(reflect.TypeOf(c).Elem().Name(), reflect.ValueOf(c).Elem())
		}
	}
	for _, c := range w.Clients {
		check("Client", reflect.ValueOf(c).Elem())
	}
	for _, a := range w.Sched.Actors {
		check("Actor", reflect.ValueOf(a).Elem())
	}
	for _, srv := range w.Fleet.Servers {
		check("Server", reflect.ValueOf(srv).Elem())
	}
	for i := range w.Fleet.Repl {
		check("ReplEntry", reflect.ValueOf(&w.Fleet.Repl[i]).Elem())
	}
}

// mutateMemory changes, one at a time, each fault's memory — its first
// client or node struck, or forgotten; in a memory of times, the time a
// target is due — reads the view, and puts the memory back. Every fault's
// memory is in the view, whatever its record keys it by.
func (s *Stepper) mutateMemory(report func(path string, changed bool)) {
	before := s.State()
	now := s.w.Now
	for _, f := range faults {
		if f.memory.by == 0 {
			continue
		}
		path := "Stepper.memory[" + string(f.Fault) + "]"
		old := s.memory[f.Fault]
		mem := map[int]time.Duration{}
		maps.Copy(mem, old)
		if _, ok := mem[0]; ok {
			delete(mem, 0)
		} else {
			mem[0] = now + time.Second
		}
		s.memory[f.Fault] = mem
		report(path, !reflect.DeepEqual(before, s.State()))
		if f.memory.due != nil {
			s.memory[f.Fault] = map[int]time.Duration{0: now + time.Second}
			struck := s.State()
			s.memory[f.Fault] = map[int]time.Duration{0: now + 2*time.Second}
			report(path+" (times)", !reflect.DeepEqual(struck, s.State()))
		}
		s.memory[f.Fault] = old
	}
}

// mutate changes a scalar: a bool flips, a number grows by one, a string
// grows by a letter. It says whether it changed f.
func mutate(f reflect.Value) bool {
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		if f.Type() == reflect.TypeOf(time.Duration(0)) {
			f.SetInt(f.Int() + int64(time.Second))
		} else {
			f.SetInt(f.Int() + 1)
		}
	case reflect.String:
		f.SetString(f.String() + "x")
	default:
		return false
	}
	return true
}
