package sim

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// goid is the calling goroutine's id.
func goid() string {
	var buf [64]byte
	line := string(buf[:runtime.Stack(buf[:], false)])
	id, _, _ := strings.Cut(strings.TrimPrefix(line, "goroutine "), " ")
	return id
}

// stateOf waits up to a second for goroutine id to show state want.
func stateOf(t *testing.T, id, want string) {
	t.Helper()
	var got string
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if got = model.GoroutineStates()[id]; got == want {
			return
		}
	}
	t.Errorf("goroutine %s is %q, want %q", id, got, want)
}

// A real run takes an actor whose goroutine waits on a channel as blocked
// in lock code, but not one on its way to the scheduler (actorSide.send),
// whose channel it waits on only because the scheduler is reading the
// traceback: taken as blocked, its message would come in after the
// scheduler had let another actor go.
func TestGoroutineStatesTellASendFromAWait(t *testing.T) {
	w := &engine.World{Sched: engine.Sched{Ch: make(chan model.Msg)}, Act: engine.ActorSide{Done: make(chan struct{})}}
	w.Fleet.Host, w.Act.W, w.Sched.W, w.Wall.W = w, w, w, w
	never := make(chan struct{})
	sendID, waitID := make(chan string), make(chan string)
	go func() { sendID <- goid(); w.Act.Send(model.Msg{Kind: model.MsgExit}) }()
	go func() { waitID <- goid(); <-never }()
	sending, waiting := <-sendID, <-waitID
	stateOf(t, sending, "sending")
	stateOf(t, waiting, "chan receive")
	if model.WaitsInProcess("sending") || !model.WaitsInProcess("chan receive") || !model.WaitsInProcess("select") || model.WaitsInProcess("IO wait") || model.WaitsInProcess("running") {
		t.Error("waitsInProcess: a send, the network or a running goroutine is no wait in-process")
	}
	close(w.Act.Done)
	close(never)
}
