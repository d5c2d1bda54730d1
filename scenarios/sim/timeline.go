package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/engine"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Script is a scenario's timeline. It declares the clients, then moves time
// and injects holds and faults; everything else — which commands go out,
// what they return, what breaks — comes from the implementation under test.
type Script func(t *Timeline)

// Timeline is what a Script drives. Its methods run on the caller's goroutine
// and return when the world has settled.
type Timeline struct {
	w *engine.World
}

// Client is a handle on one client process of the timeline.
type Client struct {
	w *engine.World
	c *model.Client
}

// Run plays script against impl and returns the trace. Only a malformed
// scenario or a stalled implementation is an error; broken invariants are
// results, recorded in the trace.
func Run(setup model.Setup, script Script, impl lockimpl.Info) (*trace.Trace, error) {
	return RunOn(context.Background(), nil, setup, script, impl)
}

// RunOn plays script against impl on target's real servers (embedded ones
// when target is nil). Cancelling ctx stops a real run; its keys are removed
// either way.
func RunOn(ctx context.Context, target *backend.Target, setup model.Setup, script Script, impl lockimpl.Info) (tr *trace.Trace, err error) {
	w, err := engine.New(ctx, setup, impl, target)
	if err != nil {
		return nil, err
	}
	defer func() {
		w.Close()
		if w.Sched.Watch.Wedged != nil {
			// The stalled call still runs, and the world is its: err
			// is the stall (RunError).
			return
		}
		if w.Err != nil {
			// What closing met (keys it could not remove) joins the run's
			// own error.
			if err != nil && !errors.Is(w.Err, err) {
				tr, err = nil, errors.Join(err, w.Err)
			} else {
				tr, err = nil, w.Err
			}
		}
	}()
	w.Sched.In(func() { script(&Timeline{w: w}) })
	if err := w.RunError(); err != nil {
		return nil, err
	}
	if err := w.NoVerdict(); err != nil {
		return nil, err
	}
	w.Trace.Verdicts = w.Judge.Verdicts
	return &w.Trace, nil
}

// Now is the virtual time since the start.
func (t *Timeline) Now() time.Duration { return t.w.Now }

// Client adds a client process named name that runs program p.
func (t *Timeline) Client(name string, p model.Program) *Client {
	for _, c := range t.w.Clients {
		if c.Name == name {
			t.w.Fail(fmt.Errorf("scenario: client %q declared twice", name))
		}
	}
	return &Client{w: t.w, c: t.w.AddClient(name, p)}
}

// Say adds a line of narration: what the timeline does next and why.
func (t *Timeline) Say(en, zh string) {
	t.w.Record(trace.Event{Kind: trace.KindNarration, Text: text.Text{EN: en, ZH: zh}})
}

// RunUntil lets the world run until virtual time at.
func (t *Timeline) RunUntil(at time.Duration) {
	if at < t.w.Now {
		t.w.Fail(fmt.Errorf("scenario: RunUntil(%s) is in the past (now %s)", at, t.w.Now))
		return
	}
	t.w.RunUntil(at, false)
}

// RunToEnd lets the world run until every client has finished or crashed, or
// until the setup's horizon.
func (t *Timeline) RunToEnd() {
	t.w.RunUntil(t.w.Setup.Horizon, true)
}

// Failover kills the server of the first node. With a replica, Sentinel
// promotes the replica Setup.DownAfter later, with what it had received when
// the primary died, and until then a command to the node fails; without one
// (Redlock) the node is simply down.
func (t *Timeline) Failover() {
	t.w.Fleet.Failover()
	t.w.RunUntil(t.w.Now, false) // what the failover interrupted fails now
}

// Rejoin brings the server Failover killed back. A failed primary rejoins as
// a replica of the one promoted in its place (what Sentinel does): a full
// resync replaces its data with the new primary's, and replication carries
// on with the same lag. A server without a replica (a Redlock node) restarts
// empty. Only a Setup with Rejoin may call it.
func (t *Timeline) Rejoin() {
	w := t.w
	if !w.Setup.Rejoin {
		w.Fail(errors.New("scenario: Rejoin needs Setup.Rejoin"))
		return
	}
	w.Fleet.Rejoin()
	w.RunUntil(w.Now, false)
}

// Name is the client's name.
func (c *Client) Name() string { return c.c.Name }

// HoldAfter stops the client at its first stop after it has sent n commands
// while in stage op: "A's release stops between its commands". If the stage
// takes fewer commands, the client stops at its next command or program
// point after the stage.
func (c *Client) HoldAfter(op trace.Op, n int) {
	c.c.Biz.Hold = &model.Hold{Op: op, After: n}
	c.w.CheckHold(c.c.Biz)
}

// HoldAt stops the client when it reaches program point op (OpRead or
// OpWrite), before it touches the resource.
func (c *Client) HoldAt(op trace.Op) {
	c.c.Biz.Hold = &model.Hold{At: op}
	c.w.CheckHold(c.c.Biz)
}

// Unhold lets a held client go on.
func (c *Client) Unhold() {
	a := c.c.Biz
	a.Hold = nil
	if a.Held {
		a.Held = false
		c.w.Emit(trace.Event{Kind: trace.KindSchedule, Actor: a.Name, Text: narrate.Unheld(a.Name),
			Short: text.Text{EN: "▶ goes on", ZH: "▶ 继续"}})
	}
}

// Pause stops the whole process: every goroutine and timer of the client
// freezes (a stop-the-world GC pause). It keeps its beliefs.
func (c *Client) Pause() {
	c.c.Paused = true
	c.w.PausedAt[c.c] = c.w.Now
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.Pause(c.c.Name),
		Short: text.Text{EN: "PAUSE", ZH: "停顿"}})
}

// Resume ends a pause: timers that came due during it fire now.
func (c *Client) Resume() {
	if !c.c.Paused {
		return
	}
	c.c.Paused = false
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name,
		Text: narrate.Resume(c.c.Name, c.w.Now-c.w.PausedAt[c.c]), Short: text.Text{EN: "RESUME", ZH: "恢复"}})
}

// Hang freezes the client's business goroutine (a call that never returns)
// while its process and any watchdog go on. It keeps its beliefs.
func (c *Client) Hang() {
	c.c.Hung, c.c.HungAt = true, c.w.Now
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.Hang(c.c.Name),
		Short: text.Text{EN: "HANG", ZH: "卡死"}})
}

// Unhang lets the stuck call return: the business goroutine goes on.
func (c *Client) Unhang() {
	if !c.c.Hung {
		return
	}
	c.c.Hung = false
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name,
		Text: narrate.Unhang(c.c.Name, c.w.Now-c.c.HungAt), Short: text.Text{EN: "RETURNS", ZH: "返回"}})
}

// Crash ends the process: it sends nothing more; its keys stay.
func (c *Client) Crash() {
	c.c.Crashed = true
	c.w.Emit(trace.Event{Kind: trace.KindFault, Actor: c.c.Name, Text: narrate.Crash(c.c.Name), Short: text.Text{EN: "CRASH", ZH: "崩溃"}})
}
