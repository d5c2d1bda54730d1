package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// --- key diffs ------------------------------------------------------------

// commandDone records a finished command: the reply, what changed on the
// server, who wrote what, and whether a release or renewal touched another
// client's lock.
func (w *World) commandDone(a *model.Actor, m model.Msg) {
	if w.Wall.Real != nil && m.Cmd.Name() == "wait" {
		// A real WAIT blocks on the server while real time passes: the
		// world's clock catches up before the reply is recorded.
		w.Wall.catchUp()
	}
	srv := w.Fleet.Servers[m.Server]
	if w.runaway(a, m, srv) {
		return
	}
	var here command.RefusedHere
	if !errors.As(m.Err, &here) {
		if why, bad := srv.B.EnvironmentError(m.Err); bad {
			w.Fail(w.Wall.RunErr(fmt.Errorf("%s: %s's %s failed: %s: %w", srv.B.Addr(), a.Name, strings.ToUpper(m.Cmd.Name()), why, m.Err)))
			return
		}
	}
	if command.IsRefusal(m.Err) {
		// The guard refused it: the lock overstepped. The trace shows the
		// command and the server's refusal, and the run ends there.
		defer w.Fail(&command.RefusedError{Impl: w.Impl.Name, Actor: a.Name, Command: strings.ToUpper(m.Cmd.Name()),
			Server: srv.Name, Key: a.Client.Key, Err: m.Err})
	}
	w.Commands++
	if m.Err != nil && !errors.Is(m.Err, redis.Nil) && !backend.IsCrossSlot(m.Err) {
		if w.Failed == 0 {
			w.firstFailed = fmt.Sprintf("%s's %s on %s: %v", a.Name, strings.ToUpper(m.Cmd.Name()), srv.Name, m.Err)
		}
		w.Failed++
	}
	before, readAt := srv.Keys, srv.ReadAt
	after := w.Fleet.ReadKeys(srv, before)
	c := a.Client
	op := a.Op
	if a.Bg {
		op = trace.OpRenew
	}
	// An orphan's command was counted when its client stopped waiting.
	if op == trace.OpAcquire && !a.Bg && !a.Orphan {
		c.AcqCmds++
	}
	if (op == trace.OpRelease || op == trace.OpLeave) && !a.Bg && !a.Orphan {
		c.RelCmds++
	}
	changes := model.DiffKeys(before, after, w.Wall.ttlTolerance())
	// On a real server a key can run out between the reading before the
	// command and the one after it: one whose TTL at that reading was no
	// more than the time since (and a few milliseconds) expired; the
	// command did not delete it. One with time left was deleted, however
	// little (get-then-del × uuid-lua releases with a second of its lease
	// left, which once read as an expiry).
	var expired []trace.KeyState
	if w.Wall.Real != nil {
		changes, expired = ranOut(changes, w.Wall.toVirtual(time.Since(readAt)+3*time.Millisecond))
	}
	attribute(changes, after, c.Name)
	srv.Keys = after
	if h := model.HolderOf(a); h.Hold != nil && h.Hold.Op == h.Op && !h.Bg && !a.Orphan {
		h.Hold.Count++
	}
	said := op
	if op == trace.OpAcquire && undoes(m.Cmd, changes) {
		said = narrate.OpUndo
	}
	say := narrate.Command(a.Name, said, changes, m.Err)
	if a.Orphan {
		say = narrate.CommandLate(a.Name, said, changes, m.Err, a.Client.Name, a.GaveUp)
	}
	if ic, ok := m.Cmd.(*redis.IntCmd); ok && m.Cmd.Name() == "wait" && len(changes) == 0 {
		if wc, ok := model.ParseWait(m.Cmd, m.Server); ok {
			say = narrate.Wait(a.Name, wc.Want, ic.Val(), m.Err)
		}
	}
	e := trace.Event{
		Kind:    trace.KindCommand,
		Actor:   a.Name,
		Server:  srv.Name,
		Args:    command.Args(m.Cmd),
		Command: command.Format(m.Cmd),
		Reply:   command.FormatReply(m.Cmd, m.Err),
		Text:    say,
		Short:   narrate.Same(narrate.ShortCommand(m.Cmd, m.Err)),
	}
	if w.Wall.Real != nil {
		// A real server's replies and errors are text for a terminal only
		// once cleaned.
		e.Reply, e.Text.EN, e.Text.ZH = text.Clean(e.Reply), text.Clean(e.Text.EN), text.Clean(e.Text.ZH)
		e.Short.EN, e.Short.ZH = text.Clean(e.Short.EN), text.Clean(e.Short.ZH)
	}
	w.Emit(e)
	w.Observe(invariant.Observation{Kind: invariant.Command, Client: c.Facts(), Changes: changes, Before: before, After: after, Cmd: m.Cmd, Err: m.Err})
	for _, k := range expired {
		w.Emit(trace.Event{Kind: trace.KindExpire, Server: srv.Name, Text: narrate.Expired(k, srv.Name),
			Short: text.Text{EN: "expired", ZH: "过期"}})
	}
	if srv.Replica >= 0 && len(changes) > 0 {
		w.Fleet.EnqueueReplication(m.Server, changes)
	}
}

// noted applies what a program reports about its beliefs.
func (w *World) noted(a *model.Actor, n model.Note) {
	c := a.Client
	switch n.Kind {
	case model.NoteAcquired, model.NoteRefused, model.NoteReleased:
		w.LockCalls++
		if n.Err != nil && !errors.Is(n.Err, lockimpl.ErrNotHeld) {
			if w.LockErrs == 0 {
				w.firstLockErr = fmt.Errorf("%s: %w", a.Name, n.Err)
			}
			w.LockErrs++
		}
	}
	switch n.Kind {
	case model.NoteOp:
		a.Op, c.Op = n.Op, n.Op
		if n.Op == trace.OpAcquire || n.Op == trace.OpReenter {
			w.beginAttempt(c)
		}
		if txt, short, ok := opBelief(c, n.Op, w.Now); ok {
			w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: txt, Short: short})
		}
	case model.NoteAcquired:
		w.quorum(c, true, n)
		if n.Nested {
			c.Reentering = false
			c.NestedKey = w.lockKeyHeld(c.Key)
			c.Fence, c.Lost = n.Fence, n.Lost
			w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.Reentered(c.Name),
				Short: text.Text{EN: "got it again", ZH: "再次拿到"}})
			break
		}
		c.Belief, c.Fence, c.Lost = trace.BeliefHolds, n.Fence, n.Lost
		c.Claim, c.ClaimField = w.claimOf(c)
		txt := narrate.Acquired(c.Name, c.Token, n.Fence)
		if c.Prog.Read {
			txt = narrate.ReadLock(txt, c.Shares)
		}
		waited := narrate.Waited(c.Attempts, c.AcqCmds, len(w.Fleet.Route), w.Now-c.WantSince)
		txt.EN, txt.ZH = txt.EN+waited.EN, txt.ZH+waited.ZH
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: txt,
			Short: narrate.ShortAcquired(c.Token, n.Fence, c.Shares)})
	case model.NoteRefused:
		w.quorum(c, false, n)
		if n.Nested {
			w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.SelfRefused(c.Name, c.Prog.Retry, n.Err),
				Short: text.Text{EN: "blocked by itself", ZH: "被自己挡住"}})
			break
		}
		retry := n.Retry
		if n.Last {
			retry = -1 // no retry: it gives up next
		}
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.Refused(c.Name, retry, n.Err),
			Short: narrate.ShortRefused(n.Err)})
	case model.NoteReleased:
		if n.Nested {
			txt := narrate.Left(c.Name, n.Err, c.RelCmds > 0)
			if n.Err == nil && c.NestedKey && !w.lockKeyHeld(c.Key) {
				// The inner release took the outer hold with it.
				txt = narrate.LeftWithoutLock(c.Name)
			}
			w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: txt, Short: narrate.ShortReleased(n.Err, c.RelCmds > 0)})
			break
		}
		c.Fence, c.Lost = 0, nil
		c.Op = trace.OpDone
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.Released(c.Name, n.Err, c.RelCmds > 0), Short: narrate.ShortReleased(n.Err, c.RelCmds > 0)})
	case model.NoteChecked:
		// A client that finds the lock no longer its own believes so.
		txt := narrate.Checked(c.Name, n.Held, n.Watchdog, c.Claim, n.Found, n.Err)
		short := text.Text{EN: "still holds", ZH: "仍持有"}
		if !n.Held {
			c.Belief, short = trace.BeliefLost, text.Text{EN: "lost: no write", ZH: "已丢锁，不写"}
		}
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: txt, Short: short})
	case model.NoteGaveUp:
		c.Belief, c.Op = trace.BeliefGaveUp, trace.OpDone
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.GaveUp(c.Name, c.Attempts, c.AcqCmds, len(w.Fleet.Route), w.Now-c.WantSince), Short: text.Text{EN: "gives up", ZH: "放弃"}})
	}
}

// ranOut takes out of changes the keys deleted that had no more than
// ranDown of TTL left: they expired, the command did not delete them.
func ranOut(changes []narrate.Change, ranDown time.Duration) (kept []narrate.Change, expired []trace.KeyState) {
	kept = slices.DeleteFunc(changes, func(ch narrate.Change) bool {
		gone := ch.Kind == narrate.ChangeDeleted && ch.Before.TTL > 0 && ch.Before.TTL <= ranDown
		if gone {
			expired = append(expired, ch.Before)
		}
		return gone
	})
	return kept, expired
}

// attribute names writer as the writer of every key changes created or
// changed, in changes and in after.
func attribute(changes []narrate.Change, after []trace.KeyState, writer string) {
	for j, ch := range changes {
		if ch.Kind == narrate.ChangeCreated || ch.Kind == narrate.ChangeValue {
			i := slices.IndexFunc(after, func(k trace.KeyState) bool { return k.Key == ch.Key })
			after[i].Writer = writer
			changes[j].After.Writer = writer
		}
	}
}

// opBelief is what client c believes, and says, as its program begins
// stage op at now; ok false: the stage says nothing.
func opBelief(c *model.Client, op trace.Op, now time.Duration) (txt, short text.Text, ok bool) {
	switch op {
	case trace.OpReenter:
		c.Reentering = true
		return narrate.Reenter(c.Name), text.Text{EN: "takes it again", ZH: "再次加锁"}, true
	case trace.OpLeave:
		c.RelCmds = 0
		return narrate.Leave(c.Name), text.Text{EN: "inner release", ZH: "内层释放"}, true
	case trace.OpAcquire:
		if c.Belief == trace.BeliefWaiting {
			c.Attempts++
			return text.Text{}, text.Text{}, false
		}
		c.WantSince, c.Attempts, c.AcqCmds = now, 1, 0
		c.Belief = trace.BeliefWaiting
		if c.Prog.Read {
			return narrate.ReadLock(narrate.Wants(c.Name), c.Shares), text.Text{EN: "wants to read", ZH: "想要读"}, true
		}
		return narrate.Wants(c.Name), text.Text{EN: "wants", ZH: "想要锁"}, true
	case trace.OpPrep:
		return narrate.Prep(c.Name, c.Prog.Prep), text.Text{EN: "prepares " + narrate.Secs(c.Prog.Prep), ZH: "准备 " + narrate.SecsZH(c.Prog.Prep)}, true
	case trace.OpWork:
		return narrate.Work(c.Name, c.Prog.Work), text.Text{EN: "works " + narrate.Secs(c.Prog.Work), ZH: "干活 " + narrate.SecsZH(c.Prog.Work)}, true
	case trace.OpFail:
		return narrate.Fail(c.Name, c.Prog.Fail), text.Text{EN: "fails " + narrate.Secs(c.Prog.Fail), ZH: "出错 " + narrate.SecsZH(c.Prog.Fail)}, true
	case trace.OpCheck:
		return narrate.Checking(c.Name), text.Text{EN: "checks", ZH: "检查"}, true
	case trace.OpRelease:
		c.Belief, c.RelCmds = trace.BeliefReleased, 0
		return narrate.Leaves(c.Name), text.Text{EN: "releases", ZH: "释放"}, true
	}
	return text.Text{}, text.Text{}, false
}

// checkLost turns a watchdog's "lock lost" signal into a belief change.
func (w *World) checkLost(c *model.Client) {
	if c.Lost == nil || c.Belief != trace.BeliefHolds {
		return
	}
	select {
	case <-c.Lost:
		c.Belief = trace.BeliefLost
		c.Lost = nil
		w.Emit(trace.Event{Kind: trace.KindBelief, Actor: c.Name, Text: narrate.Lost(c.Name, w.otherHolder(c), c.Prog.Check), Short: text.Text{EN: "lost!", ZH: "丢锁!"}})
	default:
	}
}

// otherHolder is the client whose value the lock's key of client c holds,
// on the first node where another client wrote it, as the engine last read
// the nodes; "" when no node holds another's value.
func (w *World) otherHolder(c *model.Client) string {
	for i := range w.Fleet.Route {
		if k, ok := model.FindKey(w.Fleet.Node(i).Keys, c.Key); ok && k.Writer != "" && k.Writer != c.Name {
			return k.Writer
		}
	}
	return ""
}

// bgStopped narrates a goroutine of the lock (a watchdog) that ends on its
// own while its client holds the lock, alive, and has not been told it lost
// it, after it renewed the lease: a capped watchdog at its cap. From then on
// nothing renews the lease.
func (w *World) bgStopped(a *model.Actor) {
	c := a.Client
	if !a.Bg || c.Belief != trace.BeliefHolds || c.Crashed || w.Act.closing.Load() {
		return
	}
	renewals := 0
	for _, e := range w.Trace.Events {
		if e.Kind == trace.KindCommand && e.Actor == a.Name && e.Reply == "(integer) 1" {
			renewals++
		}
	}
	if renewals == 0 {
		return // not a watchdog, or one that never renewed: nothing to say
	}
	w.Emit(trace.Event{Kind: trace.KindBelief, Actor: a.Name, Text: narrate.BgStopped(a.Name, c.Name, renewals),
		Short: text.Text{EN: "stops renewing", ZH: "停止续期"}})
}

// lockKeyHeld says whether the lock's key is on a majority of the nodes, as
// the engine last read them.
func (w *World) lockKeyHeld(key string) bool {
	n := 0
	for i := range w.Fleet.Route {
		if _, ok := model.FindKey(w.Fleet.Node(i).Keys, key); ok {
			n++
		}
	}
	return n > len(w.Fleet.Route)/2
}

// claimOf is the lock token client c shows the resource (GuardToken): the
// value its acquire left on the lock's key, on the first node where c wrote
// it (a hash's owner field, and field true); "" when it wrote none (no lock
// at all).
func (w *World) claimOf(c *model.Client) (claim string, field bool) {
	for i := range w.Fleet.Route {
		k, ok := model.FindKey(w.Fleet.Node(i).Keys, c.Key)
		if !ok || k.Writer != c.Name {
			continue
		}
		if fields := strings.Fields(k.Value); k.Type == "hash" && len(fields) > 0 {
			return ownField(fields, c.Token), true
		}
		return k.Value, false
	}
	return "", false
}

// ownField is the field of a hash lock's field=value pairs that token
// wrote: the token itself, or the token and a suffix (a write hold's
// "A#1:write"); the first field when none is (a lock that keeps a token of
// its own making).
func ownField(fields []string, token string) string {
	first, _ := trace.CutField(fields[0])
	for _, pair := range fields {
		if f, _ := trace.CutField(pair); token != "" && (f == token || strings.HasPrefix(f, token+":")) {
			return f
		}
	}
	return first
}

// passPoint performs the resource access the actor is parked at.
func (w *World) passPoint(a *model.Actor) {
	c := a.Client
	switch a.Point {
	case trace.OpRead:
		res := w.rowOf(c)
		c.ReadVal, c.ReadVer = res.Value, res.Version
		seen := res.MaxFence
		res.Read(c.Fence, c.Claim)
		txt := narrate.Read(c.Name, res.Name, c.ReadVal, c.Fence, seen > 0 && c.Fence > seen)
		if res.Guard == trace.GuardToken {
			txt = narrate.Stamp(txt, c.Claim)
		}
		w.Emit(trace.Event{Kind: trace.KindResource, Actor: c.Name, Text: txt,
			Short: text.Text{EN: fmt.Sprintf("read %d", c.ReadVal), ZH: fmt.Sprintf("读 %d", c.ReadVal)}})
	case trace.OpWrite:
		if c.ReadVal <= 0 {
			// Nothing left to sell: the buyer's own code checks what it
			// read, and a sold-out product is no write.
			w.Emit(trace.Event{Kind: trace.KindResource, Actor: c.Name, Text: narrate.SoldOut(c.Name, c.ReadVal),
				Short: text.Text{EN: "sold out", ZH: "已售罄"}})
			return
		}
		res := w.rowOf(c)
		r := res.Write(c.Name, c.ReadVal-1, c.ReadVer, c.Fence, c.Claim)
		w.Emit(trace.Event{Kind: trace.KindResource, Actor: c.Name, Text: narrate.Write(c.Name, res.Name, r), Short: narrate.ShortWrite(r)})
		w.Observe(invariant.Observation{Kind: invariant.Write, Client: c.Facts(), Write: r})
	}
}

// CheckHold freezes a business actor that has reached its hold point.
func (w *World) CheckHold(a *model.Actor) {
	at := a
	a = model.HolderOf(a)
	h := a.Hold
	if h == nil || a.Held || a.Bg || at.Sent {
		return
	}
	var hit bool
	if at.Flight {
		// A command of a goroutine the lock code started: the client is
		// held there once it has sent enough of them.
		hit = h.At == "" && h.Count >= h.After
	} else if h.At != "" {
		hit = a.Park == model.ParkPoint && a.Point == h.At
	} else {
		hit = h.Count >= h.After
	}
	if !hit {
		return
	}
	a.Held = true
	next := ""
	if at.Park == model.ParkGate {
		next = command.Format(at.Cmd)
	}
	w.Emit(trace.Event{Kind: trace.KindSchedule, Actor: a.Name, Text: narrate.Held(a.Name, next, a.Point),
		Short: text.Text{EN: "⏸ held", ZH: "⏸ 被挂起"}})
}

// undoes says a command sent while its client acquires takes back what
// the attempt wrote: a DEL, a script named a release or an unlock, or any
// command that deletes a key. A Redlock sends one to every node after too
// few said OK.
func undoes(cmd redis.Cmder, changes []narrate.Change) bool {
	switch strings.ToLower(cmd.Name()) {
	case "del", "unlink":
		return true
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		f := strings.ToLower(command.Format(cmd))
		if strings.Contains(f, "release") || strings.Contains(f, "unlock") {
			return true
		}
	}
	return slices.ContainsFunc(changes, func(ch narrate.Change) bool { return ch.Kind == narrate.ChangeDeleted })
}
