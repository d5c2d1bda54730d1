package sim

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
	"sync/atomic"
)

// Every goroutine of an actor carries a profiler label that names its world
// and itself, and so do the goroutines its lock code starts (a go statement
// passes its labels on). When lock code is stuck for good, the goroutine
// profile — read once, on that error's path — finds the actor's goroutine
// by it and says where it waits.

const actorLabel = "lockstep-actor"

var worldIDs atomic.Uint64

// goroutines tells the world's actors' goroutines apart: by id (runtime
// stacks), by profiler label (the goroutine profile).
type goroutines struct {
	world uint64   // the world's id, unique in the process: its labels'
	ids   sync.Map // *actor → its goroutine's id, for a stall
	// actors is ids the other way round: the actor whose goroutine sends a
	// command (gate.go).
	actors sync.Map
}

// label labels the calling goroutine as actor a's, and notes its
// goroutine's id for a stall (whereRunning).
func (g *goroutines) label(a *actor) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(actorLabel, g.key(a))))
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	if id, _, ok := strings.Cut(strings.TrimPrefix(line, "goroutine "), " "); ok {
		g.ids.Store(a, id)
		g.actors.Store(id, a)
	}
}

// own is the actor whose own goroutine calls it, if it is one of
// client c's: the goroutine, not the context, says whose a command is.
func (g *goroutines) own(c *client) *actor {
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	id, _, ok := strings.Cut(strings.TrimPrefix(line, "goroutine "), " ")
	if !ok {
		return nil
	}
	if a, ok := g.actors.Load(id); ok && a.(*actor).client == c {
		return a.(*actor)
	}
	return nil
}

// whereRunning says where actor a's own goroutine is now, running or not:
// "at pkg.(*lock).TryAcquire (lock.go:42)"; "" if it cannot be found. A
// stall's error names it. The goroutine profile (whereBlocked) reads a
// running goroutine's line one instruction early, at times the line of its
// function's start; the traceback of every goroutine reads it exactly.
func (g *goroutines) whereRunning(a *actor) string {
	id, ok := g.ids.Load(a)
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

func (g *goroutines) key(a *actor) string { return fmt.Sprintf("%d/%s", g.world, a.name) }

// whereBlocked says where actor a's own goroutine waits: "at
// pkg.(*lock).Release (lock.go:42)"; "" if the profile does not show it.
func (g *goroutines) whereBlocked(a *actor) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return ""
	}
	want := fmt.Sprintf("%q:%q", actorLabel, g.key(a))
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(rec, want) && strings.Contains(rec, "(*actorSide).runActor") {
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
