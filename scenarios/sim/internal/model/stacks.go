package model

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"
)

const actorLabel = "lockstep-actor"

// Goroutines tells the world's actors' goroutines apart: by id (runtime
// stacks), by profiler label (the goroutine profile).
type Goroutines struct {
	World uint64   // the world's id, unique in the process: its labels'
	IDs   sync.Map // *actor → its goroutine's id, for a stall
	// actors is ids the other way round: the actor whose goroutine sends a
	// command (the engine's gate).
	actors sync.Map
}

// Label labels the calling goroutine as actor a's, and notes its
// goroutine's id for a stall (WhereRunning).
func (g *Goroutines) Label(a *Actor) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(actorLabel, g.key(a))))
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	if id, _, ok := strings.Cut(strings.TrimPrefix(line, "goroutine "), " "); ok {
		g.IDs.Store(a, id)
		g.actors.Store(id, a)
	}
}

// Own is the actor whose own goroutine calls it, if it is one of
// client c's: the goroutine, not the context, says whose a command is.
func (g *Goroutines) Own(c *Client) *Actor {
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	id, _, ok := strings.Cut(strings.TrimPrefix(line, "goroutine "), " ")
	if !ok {
		return nil
	}
	if a, ok := g.actors.Load(id); ok && a.(*Actor).Client == c {
		return a.(*Actor)
	}
	return nil
}

// WhereRunning says where actor a's own goroutine is now, running or not:
// "at pkg.(*lock).TryAcquire (lock.go:42)"; "" if it cannot be found. A
// stall's error names it. The goroutine profile (WhereBlocked) reads a
// running goroutine's line one instruction early, at times the line of its
// function's start; the traceback of every goroutine reads it exactly.
func (g *Goroutines) WhereRunning(a *Actor) string {
	id, ok := g.IDs.Load(a)
	if !ok {
		return ""
	}
	head := "goroutine " + id.(string) + " ["
	for _, rec := range strings.Split(allStacks(), "\n\n") {
		if strings.HasPrefix(rec, head) {
			return tracebackAt(rec)
		}
	}
	return ""
}

// tracebackAt reads one goroutine of runtime.Stack's traceback: its first
// frame that is not the standard library's runtime, synchronisation or
// clock.
func tracebackAt(rec string) string {
	lines := strings.Split(rec, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		call, file := lines[i], strings.Fields(lines[i+1])
		if strings.HasPrefix(call, "created by ") || len(file) == 0 {
			break
		}
		fn := call
		if j := strings.LastIndexByte(call, '('); j > 0 {
			fn = call[:j]
		}
		if stdFrame(fn) {
			continue
		}
		return fmt.Sprintf("at %s (%s)", fn, filepath.Base(file[0]))
	}
	return ""
}

// stdFrame says whether function fn is the standard library's runtime,
// synchronisation or clock, which a lock waits or spins in, not where.
func stdFrame(fn string) bool {
	for _, p := range []string{"runtime.", "sync.", "sync/", "internal/", "time."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

func (g *Goroutines) key(a *Actor) string { return fmt.Sprintf("%d/%s", g.World, a.Name) }

// WhereBlocked says where actor a's own goroutine waits: "at
// pkg.(*lock).Release (lock.go:42)"; "" if the profile does not show it.
func (g *Goroutines) WhereBlocked(a *Actor) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return ""
	}
	want := fmt.Sprintf("%q:%q", actorLabel, g.key(a))
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(rec, want) && strings.Contains(rec, RunActorFrame) {
			return blockedAt(rec)
		}
	}
	return ""
}

// blockedAt reads one record of the goroutine profile (debug 1, which
// leaves out the runtime's own frames): the first frame that is not the
// standard library's synchronisation is where the goroutine waits.
func blockedAt(rec string) string {
	sc := bufio.NewScanner(strings.NewReader(rec))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(sc.Text(), "#"))
		if len(f) != 3 || !strings.HasPrefix(f[0], "0x") {
			continue
		}
		fn, _, _ := strings.Cut(f[1], "+0x")
		if stdFrame(fn) {
			continue
		}
		return fmt.Sprintf("at %s (%s)", fn, filepath.Base(f[2]))
	}
	return ""
}

// inProcessWaits are the traceback's states of a goroutine that waits
// in-process.
var inProcessWaits = []string{"chan receive", "chan send", "select", "sleep", "sync.", "semacquire"}

// WaitsInProcess says whether a goroutine in traceback state st waits
// in-process.
func WaitsInProcess(st string) bool {
	for _, p := range inProcessWaits {
		if strings.HasPrefix(st, p) {
			return true
		}
	}
	return false
}

// statesCache keeps the last traceback's states for statesFresh: real runs
// side by side (locktest runs every lesson at once) share one reading, as
// each stops the world.
var statesCache struct {
	sync.Mutex
	at     time.Time
	states map[string]string
}

const statesFresh = time.Millisecond

// SendFrame is the name of the function by which an actor's goroutine
// sends the scheduler a message, as a traceback shows its frame, and
// RunActorFrame the function an actor's goroutine begins in. The engine sets
// both from its own functions (engine's stacks.go), so that they follow a
// rename.
var SendFrame, RunActorFrame string

// GoroutineStates maps each goroutine's id to its state in the traceback
// ("chan receive", "IO wait", "running" …).
func GoroutineStates() map[string]string {
	statesCache.Lock()
	defer statesCache.Unlock()
	if time.Since(statesCache.at) < statesFresh {
		return statesCache.states
	}
	states := map[string]string{}
	for _, rec := range strings.Split(allStacks(), "\n\n") {
		head, _, _ := strings.Cut(rec, "\n")
		id, rest, ok := strings.Cut(strings.TrimPrefix(head, "goroutine "), " [")
		if !ok {
			continue
		}
		st, _, _ := strings.Cut(strings.TrimSuffix(rest, "]:"), ",")
		if strings.Contains(rec, SendFrame+"(") {
			// On its way to the scheduler, which is not listening while
			// it reads this: not blocked in lock code.
			st = "sending"
		}
		states[id] = st
	}
	statesCache.at, statesCache.states = time.Now(), states
	return states
}

// allStacks is runtime.Stack's traceback of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
