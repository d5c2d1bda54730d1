package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
)

// Every goroutine of an actor carries a profiler label that names its world
// and itself, and so do the goroutines its lock code starts (a go statement
// passes its labels on). When lock code is stuck for good, the goroutine
// profile — read once, on that error's path — finds the actor's goroutine
// by it and says where it waits.

const actorLabel = "lockstep-actor"

var worldIDs atomic.Uint64

// labelActor labels the calling goroutine as actor a's.
func (w *World) labelActor(a *actor) {
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(actorLabel, w.actorKey(a))))
}

func (w *World) actorKey(a *actor) string { return fmt.Sprintf("%d/%s", w.id, a.name) }

// whereBlocked says where actor a's own goroutine waits: "at
// pkg.(*lock).Release (lock.go:42)"; "" if the profile does not show it.
func (w *World) whereBlocked(a *actor) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return ""
	}
	want := fmt.Sprintf("%q:%q", actorLabel, w.actorKey(a))
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(rec, want) && strings.Contains(rec, "(*World).runActor") {
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
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "internal/") {
			continue
		}
		return fmt.Sprintf("at %s (%s)", fn, filepath.Base(f[2]))
	}
	return ""
}
