package sim

import (
	"bytes"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Lock code may start goroutines of its own, without Env.Go: a library that
// asks its Redis nodes at once (redsync sends to each node from a goroutine
// of its own and waits for the answers). The engine cannot see such a
// goroutine start or end, only its commands. To know when every goroutine of
// a run has stopped — parked at the gate, or waiting in lock code for
// commands that are parked — it reads the states the Go runtime reports for
// its goroutines, as testing/synctest's "durably blocked" does from inside
// the runtime. Only runs whose lock code sends from goroutines of its own pay
// for it.

// rootKind is what a goroutine of the run is, by the function at the bottom
// of its stack.
type rootKind int

const (
	rootOther rootKind = iota // started by lock code with a go statement
	rootActor                 // an actor's own (runActor)
	rootFan                   // a call of Env.Fan (fanCall)
)

var (
	runActorEntry = reflect.ValueOf((*World).runActor).Pointer()
	fanCallEntry  = reflect.ValueOf((*World).fanCall).Pointer()
)

// goroutineRoot says which goroutine calls it, from the program counters of
// its stack: runtime.Callers without symbols costs a tenth of the
// runtime.Stack that goid reads (which formats every frame, with its file
// and line), and the gate asks for every command.
func goroutineRoot() rootKind {
	var buf [128]uintptr
	pcs := buf[:]
	n := runtime.Callers(2, pcs)
	for n == len(pcs) && n < 1<<20 {
		// A deep stack: its bottom is further down.
		pcs = make([]uintptr, 8*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	for i := n - 1; i >= 0; i-- {
		f := runtime.FuncForPC(pcs[i] - 1)
		if f == nil {
			continue
		}
		switch f.Entry() {
		case runActorEntry:
			return rootActor
		case fanCallEntry:
			return rootFan
		}
	}
	return rootOther
}

// goid is the calling goroutine's id, from the first line of its stack:
// "goroutine 42 [running]:".
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// sendFunc is how World.send appears in a stack: a goroutine blocked there
// has a message for the scheduler.
var sendFunc = runtime.FuncForPC(reflect.ValueOf((*World).send).Pointer()).Name() + "("

// goroutine is one entry of the runtime's goroutine dump.
type goroutine struct {
	id, parent uint64
	state      string // "chan receive", "running", …
	sending    bool   // blocked in World.send
}

// blocked says whether the goroutine waits for another goroutine — on a
// channel, in a select, for a sync.Cond or a sync.WaitGroup — rather than
// running, about to run, or waiting for something that ends by itself: the
// wall clock, the network, or a mutex or semaphore that some goroutine holds
// for a moment. The last may be held by a goroutine outside the run (the
// runtime's own: an allocation that starts a garbage collection waits in
// "semacquire" while another goroutine stops the world), so it does not
// count; testing/synctest draws the line at the same place ("durably
// blocked").
func (g goroutine) blocked() bool {
	if g.sending {
		return false
	}
	for _, s := range []string{"chan receive", "chan send", "select", "sync.Cond.Wait", "sync.WaitGroup.Wait"} {
		if strings.HasPrefix(g.state, s) {
			return true
		}
	}
	return false
}

// A dump stops the world and grows with every goroutine of the process, so
// runs in parallel share them: a dump begun after a run asked for one
// answers it.
var dumps struct {
	asked   atomic.Uint64 // tickets handed out
	mu      sync.Mutex
	covered uint64 // tickets asked before the last dump began
	last    map[uint64]goroutine
}

// goroutines returns a dump of every goroutine taken after the call began.
// It is shared: read it, do not change it.
func goroutines() map[uint64]goroutine {
	ticket := dumps.asked.Add(1)
	dumps.mu.Lock()
	defer dumps.mu.Unlock()
	if dumps.covered >= ticket {
		return dumps.last
	}
	covered := dumps.asked.Load()
	dumps.last, dumps.covered = dump(), covered
	return dumps.last
}

// dump reads the runtime's dump of every goroutine.
func dump() map[uint64]goroutine {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[uint64]goroutine{}
	for _, block := range bytes.Split(buf, []byte("\n\n")) {
		s := string(block)
		head, rest, _ := strings.Cut(s, "\n")
		head, ok := strings.CutPrefix(head, "goroutine ")
		if !ok {
			continue
		}
		var g goroutine
		idText, _, _ := strings.Cut(head, " ")
		g.id, _ = strconv.ParseUint(idText, 10, 64)
		if i, j := strings.IndexByte(head, '['), strings.LastIndexByte(head, ']'); i >= 0 && j > i {
			g.state, _, _ = strings.Cut(head[i+1:j], ",")
		}
		g.sending = strings.Contains(rest, sendFunc)
		if i := strings.LastIndex(rest, " in goroutine "); i >= 0 {
			p := rest[i+len(" in goroutine "):]
			if j := strings.IndexByte(p, '\n'); j >= 0 {
				p = p[:j]
			}
			g.parent, _ = strconv.ParseUint(strings.TrimSpace(p), 10, 64)
		}
		out[g.id] = g
	}
	return out
}
