package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// commandDone records a finished command: the reply, what changed on the
// server, who wrote what, and whether a release or renewal touched another
// client's lock.
func (w *world) commandDone(a *actor, m msg) {
	if w.wall.real != nil && m.cmd.Name() == "wait" {
		// A real WAIT blocks on the server while real time passes: the
		// world's clock catches up before the reply is recorded.
		w.wall.catchUp()
	}
	srv := w.fleet.servers[m.server]
	if w.runaway(a, m, srv) {
		return
	}
	var here command.RefusedHere
	if !errors.As(m.err, &here) {
		if why, bad := srv.b.EnvironmentError(m.err); bad {
			w.fail(w.wall.runErr(fmt.Errorf("%s: %s's %s failed: %s: %w", srv.b.Addr(), a.name, strings.ToUpper(m.cmd.Name()), why, m.err)))
			return
		}
	}
	if command.IsRefusal(m.err) {
		// The guard refused it: the lock overstepped. The trace shows the
		// command and the server's refusal, and the run ends there.
		defer w.fail(&command.RefusedError{Impl: w.impl.Name, Actor: a.name, Command: strings.ToUpper(m.cmd.Name()),
			Server: srv.name, Key: a.client.key, Err: m.err})
	}
	w.commands++
	if m.err != nil && !errors.Is(m.err, redis.Nil) && !backend.IsCrossSlot(m.err) {
		if w.failed == 0 {
			w.firstFailed = fmt.Sprintf("%s's %s on %s: %v", a.name, strings.ToUpper(m.cmd.Name()), srv.name, m.err)
		}
		w.failed++
	}
	before, readAt := srv.keys, srv.readAt
	after := w.fleet.readKeys(srv, before)
	c := a.client
	op := a.op
	if a.bg {
		op = trace.OpRenew
	}
	// An orphan's command was counted when its client stopped waiting.
	if op == trace.OpAcquire && !a.bg && !a.orphan {
		c.acqCmds++
	}
	if (op == trace.OpRelease || op == trace.OpLeave) && !a.bg && !a.orphan {
		c.relCmds++
	}
	changes := diffKeys(before, after, w.wall.ttlTolerance())
	// On a real server a key can run out between the reading before the
	// command and the one after it: one whose TTL at that reading was no
	// more than the time since (and a few milliseconds) expired; the
	// command did not delete it. One with time left was deleted, however
	// little (get-then-del × uuid-lua releases with a second of its lease
	// left, which once read as an expiry).
	var expired []trace.KeyState
	if w.wall.real != nil {
		ranDown := w.wall.toVirtual(time.Since(readAt) + 3*time.Millisecond)
		changes = slices.DeleteFunc(changes, func(ch narrate.Change) bool {
			gone := ch.Kind == narrate.ChangeDeleted && ch.Before.TTL > 0 && ch.Before.TTL <= ranDown
			if gone {
				expired = append(expired, ch.Before)
			}
			return gone
		})
	}
	for j, ch := range changes {
		if ch.Kind == narrate.ChangeCreated || ch.Kind == narrate.ChangeValue {
			i := slices.IndexFunc(after, func(k trace.KeyState) bool { return k.Key == ch.Key })
			after[i].Writer = c.name
			changes[j].After.Writer = c.name
		}
	}
	srv.keys = after
	if h := holderOf(a); h.hold != nil && h.hold.op == h.op && !h.bg && !a.orphan {
		h.hold.count++
	}
	say := narrate.Command(a.name, op, changes, m.err)
	if a.orphan {
		say = narrate.CommandLate(a.name, op, changes, m.err, a.client.name, a.gaveUp)
	}
	if ic, ok := m.cmd.(*redis.IntCmd); ok && m.cmd.Name() == "wait" && len(changes) == 0 {
		if wc, ok := parseWait(m.cmd, m.server); ok {
			say = narrate.Wait(a.name, wc.want, ic.Val(), m.err)
		}
	}
	e := trace.Event{
		Kind:    trace.KindCommand,
		Actor:   a.name,
		Server:  srv.name,
		Args:    command.Args(m.cmd),
		Command: command.Format(m.cmd),
		Reply:   command.FormatReply(m.cmd, m.err),
		Text:    say,
		Short:   narrate.Same(narrate.ShortCommand(m.cmd, m.err)),
	}
	if w.wall.real != nil {
		// A real server's replies and errors are text for a terminal only
		// once cleaned.
		e.Reply, e.Text.EN, e.Text.ZH = text.Clean(e.Reply), text.Clean(e.Text.EN), text.Clean(e.Text.ZH)
		e.Short.EN, e.Short.ZH = text.Clean(e.Short.EN), text.Clean(e.Short.ZH)
	}
	w.emit(e)
	w.observe(invariant.Observation{Kind: invariant.Command, Client: c.facts(), Changes: changes, Before: before, After: after, Cmd: m.cmd, Err: m.err})
	for _, k := range expired {
		w.emit(trace.Event{Kind: trace.KindExpire, Server: srv.name, Text: narrate.Expired(k, srv.name),
			Short: text.Text{EN: "expired", ZH: "过期"}})
	}
	if srv.replica >= 0 && len(changes) > 0 {
		w.fleet.enqueueReplication(m.server, changes)
	}
}

// noted applies what a program reports about its beliefs.
func (w *world) noted(a *actor, n note) {
	c := a.client
	switch n.kind {
	case noteAcquired, noteRefused, noteReleased:
		w.lockCalls++
		if n.err != nil && !errors.Is(n.err, lockimpl.ErrNotHeld) {
			if w.lockErrs == 0 {
				w.firstLockErr = fmt.Errorf("%s: %w", a.name, n.err)
			}
			w.lockErrs++
		}
	}
	switch n.kind {
	case noteOp:
		a.op, c.op = n.op, n.op
		if n.op == trace.OpAcquire || n.op == trace.OpReenter {
			w.beginAttempt(c)
		}
		switch n.op {
		case trace.OpReenter:
			c.reentering = true
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Reenter(c.name),
				Short: text.Text{EN: "takes it again", ZH: "再次加锁"}})
		case trace.OpLeave:
			c.relCmds = 0
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Leave(c.name),
				Short: text.Text{EN: "inner release", ZH: "内层释放"}})
		case trace.OpAcquire:
			if c.belief != trace.BeliefWaiting {
				c.wantSince, c.attempts, c.acqCmds = w.now, 0, 0
			}
			c.attempts++
			if c.belief != trace.BeliefWaiting {
				c.belief = trace.BeliefWaiting
				w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Wants(c.name), Short: text.Text{EN: "wants", ZH: "想要锁"}})
			}
		case trace.OpPrep:
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Prep(c.name, c.prog.Prep),
				Short: text.Text{EN: "prepares " + narrate.Secs(c.prog.Prep), ZH: "准备 " + narrate.SecsZH(c.prog.Prep)}})
		case trace.OpWork:
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Work(c.name, c.prog.Work),
				Short: text.Text{EN: "works " + narrate.Secs(c.prog.Work), ZH: "干活 " + narrate.SecsZH(c.prog.Work)}})
		case trace.OpFail:
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Fail(c.name, c.prog.Fail),
				Short: text.Text{EN: "fails " + narrate.Secs(c.prog.Fail), ZH: "出错 " + narrate.SecsZH(c.prog.Fail)}})
		case trace.OpRelease:
			c.belief, c.relCmds = trace.BeliefReleased, 0
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Leaves(c.name), Short: text.Text{EN: "releases", ZH: "释放"}})
		}
	case noteAcquired:
		w.quorum(c, true, n)
		if n.nested {
			c.reentering = false
			c.nestedKey = w.lockKeyHeld(c.key)
			c.fence, c.lost = n.fence, n.lost
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Reentered(c.name),
				Short: text.Text{EN: "got it again", ZH: "再次拿到"}})
			break
		}
		c.belief, c.fence, c.lost = trace.BeliefHolds, n.fence, n.lost
		c.claim = w.claimOf(c)
		txt := narrate.Acquired(c.name, c.token, n.fence)
		waited := narrate.Waited(c.attempts, c.acqCmds, len(w.fleet.route), w.now-c.wantSince)
		txt.EN, txt.ZH = txt.EN+waited.EN, txt.ZH+waited.ZH
		w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: txt,
			Short: narrate.ShortAcquired(c.token, n.fence)})
	case noteRefused:
		w.quorum(c, false, n)
		if n.nested {
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.SelfRefused(c.name, c.prog.Retry, n.err),
				Short: text.Text{EN: "blocked by itself", ZH: "被自己挡住"}})
			break
		}
		retry := n.retry
		if n.last {
			retry = -1 // no retry: it gives up next
		}
		w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Refused(c.name, retry, n.err),
			Short: narrate.ShortRefused(n.err)})
	case noteReleased:
		if n.nested {
			txt := narrate.Left(c.name, n.err, c.relCmds > 0)
			if n.err == nil && c.nestedKey && !w.lockKeyHeld(c.key) {
				// The inner release took the outer hold with it.
				txt = narrate.LeftWithoutLock(c.name)
			}
			w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: txt, Short: narrate.ShortReleased(n.err, c.relCmds > 0)})
			break
		}
		c.fence, c.lost = 0, nil
		c.op = trace.OpDone
		w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Released(c.name, n.err, c.relCmds > 0), Short: narrate.ShortReleased(n.err, c.relCmds > 0)})
	case noteGaveUp:
		c.belief, c.op = trace.BeliefGaveUp, trace.OpDone
		w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.GaveUp(c.name, c.attempts, c.acqCmds, len(w.fleet.route), w.now-c.wantSince), Short: text.Text{EN: "gives up", ZH: "放弃"}})
	}
}

// checkLost turns a watchdog's "lock lost" signal into a belief change.
func (w *world) checkLost(c *client) {
	if c.lost == nil || c.belief != trace.BeliefHolds {
		return
	}
	select {
	case <-c.lost:
		c.belief = trace.BeliefLost
		c.lost = nil
		w.emit(trace.Event{Kind: trace.KindBelief, Actor: c.name, Text: narrate.Lost(c.name), Short: text.Text{EN: "lost!", ZH: "丢锁!"}})
	default:
	}
}

// bgStopped narrates a goroutine of the lock (a watchdog) that ends on its
// own while its client holds the lock, alive, and has not been told it lost
// it, after it renewed the lease: a capped watchdog at its cap. From then on
// nothing renews the lease.
func (w *world) bgStopped(a *actor) {
	c := a.client
	if !a.bg || c.belief != trace.BeliefHolds || c.crashed || w.act.closing.Load() {
		return
	}
	renewals := 0
	for _, e := range w.trace.Events {
		if e.Kind == trace.KindCommand && e.Actor == a.name && e.Reply == "(integer) 1" {
			renewals++
		}
	}
	if renewals == 0 {
		return // not a watchdog, or one that never renewed: nothing to say
	}
	w.emit(trace.Event{Kind: trace.KindBelief, Actor: a.name, Text: narrate.BgStopped(a.name, c.name, renewals),
		Short: text.Text{EN: "stops renewing", ZH: "停止续期"}})
}

// lockKeyHeld says whether the lock's key is on a majority of the nodes, as
// the engine last read them.
func (w *world) lockKeyHeld(key string) bool {
	n := 0
	for i := range w.fleet.route {
		if _, ok := findKey(w.fleet.node(i).keys, key); ok {
			n++
		}
	}
	return n > len(w.fleet.route)/2
}

// claimOf is the lock token client c shows the resource (GuardToken): the
// value its acquire left on the lock's key, on the first node where c wrote
// it (a hash's owner field); "" when it wrote none (no lock at all).
func (w *world) claimOf(c *client) string {
	for i := range w.fleet.route {
		k, ok := findKey(w.fleet.node(i).keys, c.key)
		if !ok || k.Writer != c.name {
			continue
		}
		if fields := strings.Fields(k.Value); k.Type == "hash" && len(fields) > 0 {
			f, _ := trace.CutField(fields[0])
			return f
		}
		return k.Value
	}
	return ""
}

// passPoint performs the resource access the actor is parked at.
func (w *world) passPoint(a *actor) {
	c := a.client
	switch a.point {
	case trace.OpRead:
		res := w.rowOf(c)
		c.readVal, c.readVer = res.value, res.version
		res.read(c.fence, c.claim)
		txt := narrate.Read(c.name, res.name, c.readVal)
		if res.guard == trace.GuardToken {
			txt = narrate.Stamp(txt, c.claim)
		}
		w.emit(trace.Event{Kind: trace.KindResource, Actor: c.name, Text: txt,
			Short: text.Text{EN: fmt.Sprintf("read %d", c.readVal), ZH: fmt.Sprintf("读 %d", c.readVal)}})
	case trace.OpWrite:
		if c.readVal <= 0 {
			// Nothing left to sell: the buyer's own code checks what it
			// read, and a sold-out product is no write.
			w.emit(trace.Event{Kind: trace.KindResource, Actor: c.name, Text: narrate.SoldOut(c.name, c.readVal),
				Short: text.Text{EN: "sold out", ZH: "已售罄"}})
			return
		}
		res := w.rowOf(c)
		r := res.write(c.name, c.readVal-1, c.readVer, c.fence, c.claim)
		w.emit(trace.Event{Kind: trace.KindResource, Actor: c.name, Text: narrate.Write(c.name, res.name, r), Short: narrate.ShortWrite(r)})
		w.observe(invariant.Observation{Kind: invariant.Write, Client: c.facts(), Write: r})
	}
}

// checkHold freezes a business actor that has reached its hold point.
func (w *world) checkHold(a *actor) {
	at := a
	a = holderOf(a)
	h := a.hold
	if h == nil || a.held || a.bg || at.sent {
		return
	}
	var hit bool
	if at.flight {
		// A command of a goroutine the lock code started: the client is
		// held there once it has sent enough of them.
		hit = h.at == "" && h.count >= h.after
	} else if h.at != "" {
		hit = a.park == parkPoint && a.point == h.at
	} else {
		hit = h.count >= h.after
	}
	if !hit {
		return
	}
	a.held = true
	next := ""
	if at.park == parkGate {
		next = command.Format(at.cmd)
	}
	w.emit(trace.Event{Kind: trace.KindSchedule, Actor: a.name, Text: narrate.Held(a.name, next, a.point),
		Short: text.Text{EN: "⏸ held", ZH: "⏸ 被挂起"}})
}

// holderOf is the actor whose hold counts a's commands: its own, or for a
// flight the actor that started it.
func holderOf(a *actor) *actor {
	if a.flight {
		return a.parent
	}
	return a
}

// hold is where the scenario wants a client stopped: at a program point, or
// at its first stop after it has sent `after` commands in stage op.
type hold struct {
	at    trace.Op
	op    trace.Op
	after int
	count int
}

// --- key diffs ------------------------------------------------------------

// diffKeys lists what one command changed, in key order. TTLs that differ by
// no more than tol count as unchanged (real servers' clocks run on while a
// snapshot is read).
func diffKeys(before, after []trace.KeyState, tol time.Duration) []narrate.Change {
	var out []narrate.Change
	for _, b := range before {
		a, ok := findKey(after, b.Key)
		switch {
		case !ok:
			out = append(out, narrate.Change{Key: b.Key, Kind: narrate.ChangeDeleted, Before: b})
		case a.Value != b.Value || a.Type != b.Type:
			out = append(out, narrate.Change{Key: b.Key, Kind: narrate.ChangeValue, Before: b, After: a})
		case a.TTL != b.TTL && (a.TTL < 0 || b.TTL < 0 || a.TTL-b.TTL > tol || b.TTL-a.TTL > tol):
			// A lease that moves later (or stops expiring) is extended; one
			// that starts expiring or gets shorter is merely set.
			kind := narrate.ChangeTTLSet
			if b.TTL > 0 && (a.TTL > b.TTL || a.TTL < 0) {
				kind = narrate.ChangeExtended
			}
			out = append(out, narrate.Change{Key: b.Key, Kind: kind, Before: b, After: a})
		}
	}
	for _, a := range after {
		if _, ok := findKey(before, a.Key); !ok {
			out = append(out, narrate.Change{Key: a.Key, Kind: narrate.ChangeCreated, After: a})
		}
	}
	slices.SortStableFunc(out, func(x, y narrate.Change) int {
		switch {
		case x.Key < y.Key:
			return -1
		case x.Key > y.Key:
			return 1
		}
		return 0
	})
	return out
}
