package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// These tests pin each naive implementation's violation to the step where the
// lesson says it happens. The course texts: seeds 000 and 001 (SET NX EX,
// 误删, GET+DEL 竞态, 主从切换丢锁, 进程暂停), seed 004 (超卖).

func play(t *testing.T, scenario, impl string) *trace.Trace {
	t.Helper()
	s, err := Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	in, err := lockimpl.Lookup(impl)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// brokeAt asserts that invariant inv broke at virtual time at, with a reason
// containing want, and returns the violation event.
func brokeAt(t *testing.T, tr *trace.Trace, inv string, at time.Duration, want string) trace.Event {
	t.Helper()
	v := tr.Verdict(inv)
	if !v.Broken {
		t.Fatalf("%s × %s: %s did not break", tr.Scenario, tr.Impl, inv)
	}
	e := tr.Events[v.Step]
	if e.Kind != trace.KindViolation || e.Invariant != inv {
		t.Fatalf("verdict step %d is %s %q, not a %s violation", v.Step, e.Kind, e.Invariant, inv)
	}
	if v.T != at {
		t.Errorf("%s × %s: %s broke at t=%s, want t=%s", tr.Scenario, tr.Impl, inv, v.T, at)
	}
	if !strings.Contains(v.Reason.EN, want) {
		t.Errorf("%s reason %q does not say %q", inv, v.Reason.EN, want)
	}
	if v.Reason.ZH == "" {
		t.Errorf("%s reason has no Chinese text", inv)
	}
	return e
}

// cause is the event just before a violation: what broke the invariant.
func cause(tr *trace.Trace, v trace.Event) trace.Event { return tr.Events[v.Step-1] }

func lockKey(t *testing.T, snap trace.Snapshot, server string) trace.KeyState {
	t.Helper()
	for _, s := range snap.Servers {
		if s.Name != server {
			continue
		}
		for _, k := range s.Keys {
			if k.Key == "lock:product:1001" {
				return k
			}
		}
	}
	t.Fatalf("no lock key on %s", server)
	return trace.KeyState{}
}

// Seed 001 §1: SETNX without EX — the crashed holder's lock never expires;
// B, waiting from t=5s, is stuck past the 60s bound.
func TestSetnxCrashOrphansTheLock(t *testing.T) {
	for _, impl := range []string{"setnx", "setnx-expire"} {
		t.Run(impl, func(t *testing.T) {
			tr := play(t, "setnx-no-ex", impl)
			v := brokeAt(t, tr, invariant.Liveness, 65*time.Second, "B has waited 60s")
			if k := lockKey(t, v.Snap, "redis-1"); k.TTL != -1 || k.Writer != "A" {
				t.Errorf("lock key at the violation = %+v, want A's key with no TTL", k)
			}
		})
	}
	// The SETNX+EXPIRE lock was caught between its two commands.
	tr := play(t, "setnx-no-ex", "setnx-expire")
	if !hasEvent(tr, trace.KindSchedule, "holds A before its next command: EXPIRE lock:product:1001 30") {
		t.Error("A was not held between SETNX and EXPIRE")
	}
	// SET NX EX cannot be split: B gets the lock once the TTL runs out.
	tr = play(t, "setnx-no-ex", "set-nx-ex")
	if !hasEvent(tr, trace.KindBelief, "B now holds the lock") {
		t.Error("B never got the expired lock under set-nx-ex")
	}
}

// Seed 001 §2: A's DEL at t=40s removes the lock B took at t=31s (误删); C
// gets in at t=42s while B is still inside.
func TestDelOtherDeletesBsLock(t *testing.T) {
	tr := play(t, "del-other", "set-nx-ex")
	v := brokeAt(t, tr, invariant.Ownership, 40*time.Second, "A deleted the lock that B wrote")
	if c := cause(tr, v); c.Actor != "A" || c.Command != "DEL lock:product:1001" || c.Reply != "(integer) 1" {
		t.Errorf("cause = %s %q → %q, want A's DEL → 1", c.Actor, c.Command, c.Reply)
	}
	brokeAt(t, tr, invariant.Mutex, 31*time.Second, "A and B both believe")
	if !hasEvent(tr, trace.KindViolation, "B and C both believe") {
		t.Error("no violation for B and C inside together")
	}
	// A token makes A leave B's lock alone; C waits for B.
	tr = play(t, "del-other", "uuid-lua")
	if tr.Verdict(invariant.Ownership).Broken || hasEvent(tr, trace.KindViolation, "B and C") {
		t.Error("uuid-lua still removed B's lock")
	}
}

// Seed 001 §2 / seed 000 §4: A's GET sees its own token; the lock expires;
// B takes it at t=31s; A's DEL at t=31.5s removes it; C enters at t=32s.
func TestGetThenDelRace(t *testing.T) {
	tr := play(t, "get-then-del", "uuid-get-del")
	v := brokeAt(t, tr, invariant.Ownership, 31500*time.Millisecond, "A deleted the lock that B wrote")
	if c := cause(tr, v); c.Command != "DEL lock:product:1001" {
		t.Errorf("cause = %q, want A's DEL", c.Command)
	}
	brokeAt(t, tr, invariant.Mutex, 32*time.Second, "B and C both believe")
	// The same timeline with the Lua release: one command, no "between".
	tr = play(t, "get-then-del", "uuid-lua")
	if hasEvent(tr, trace.KindSchedule, "holds A") {
		t.Error("uuid-lua's release was split by the hold")
	}
	if len(tr.Broken()) != 0 {
		t.Errorf("uuid-lua broke %v", tr.Broken())
	}
}

// Seed 001 §4: the primary dies before replicating A's lock; B takes it on
// the promoted replica at t=2s.
func TestFailoverLosesTheLock(t *testing.T) {
	tr := play(t, "failover", "uuid-lua")
	v := brokeAt(t, tr, invariant.Mutex, 2*time.Second, "A and B both believe")
	acquire := tr.Events[v.Step-2]
	if acquire.Actor != "B" || acquire.Server != "redis-2" || acquire.Reply != "OK" {
		t.Errorf("B's acquire = %s on %s → %q, want B on the promoted redis-2 → OK", acquire.Actor, acquire.Server, acquire.Reply)
	}
	// Redlock: one of five servers gone, the majority still holds A's lock.
	tr = play(t, "failover", "redlock")
	if len(tr.Broken()) != 0 {
		t.Errorf("redlock broke %v", tr.Broken())
	}
	if !hasEvent(tr, trace.KindBelief, "B does not get the lock") {
		t.Error("B was never refused under redlock")
	}
}

// Seed 001 §5: A pauses before its write; the lease (and the frozen
// watchdog) runs out; B writes at t=36s; A writes a stale value at t=45.5s.
// Fencing makes the store refuse that write.
func TestGCPauseStaleWrite(t *testing.T) {
	tr := play(t, "gc-pause", "uuid-lua-watchdog")
	brokeAt(t, tr, invariant.Mutex, 31*time.Second, "A and B both believe")
	v := brokeAt(t, tr, invariant.Resource, 45500*time.Millisecond, "A's write is based on a stale read")
	if got := v.Snap.Resource.Value; got != 99 {
		t.Errorf("stock after both writes = %d, want 99 (one sale lost)", got)
	}
	tr = play(t, "gc-pause", "fenced")
	if tr.Verdict(invariant.Resource).Broken {
		t.Fatal("fenced lost an update")
	}
	if !hasEvent(tr, trace.KindResource, "rejects A's write of stock:product:1001 = 99: fencing token 1 < 2") {
		t.Error("the store did not reject A's stale write")
	}
	if got := tr.Events[len(tr.Events)-1].Snap.Resource.Value; got != 99 {
		t.Errorf("final stock = %d, want 99", got)
	}
}

func hasEvent(tr *trace.Trace, kind trace.Kind, text string) bool {
	for _, e := range tr.Events {
		if e.Kind == kind && strings.Contains(e.Text.EN, text) {
			return true
		}
	}
	return false
}

// count counts the events of kind whose English text contains text.
func count(tr *trace.Trace, kind trace.Kind, text string) int {
	n := 0
	for _, e := range tr.Events {
		if e.Kind == kind && strings.Contains(e.Text.EN, text) {
			n++
		}
	}
	return n
}

// Seed 000/001 §3: the TTL must cover the worst-case work, or a watchdog must
// renew it. A 10s lease, 25s of work: B gets in at t=11s while A works, and
// A's write at t=25s loses B's update. The watchdog renews every 3.3s and B
// waits for A.
func TestLeaseTooShort(t *testing.T) {
	tr := play(t, "lease-too-short", "uuid-lua")
	v := brokeAt(t, tr, invariant.Mutex, 11*time.Second, "A and B both believe")
	if a := v.Snap.Clients[0]; a.Op != trace.OpWork {
		t.Errorf("A is at %s when B gets in, want still at work", a.Op)
	}
	brokeAt(t, tr, invariant.Resource, 25*time.Second, "A's write is based on a stale read")

	tr = play(t, "lease-too-short", "uuid-lua-watchdog")
	if b := tr.Broken(); len(b) != 0 {
		t.Fatalf("uuid-lua-watchdog broke %v", b)
	}
	if n := count(tr, trace.KindCommand, "A.watchdog's renewal: lock:product:1001 is extended"); n != 7 {
		t.Errorf("%d renewals in 25s of work at TTL/3, want 7", n)
	}
}

// Seed 004 (拆分任务，让临界区尽可能短): lease-too-short's 10s lease and
// A's 25s of work, split: 20s before the lock (prep=20s), 5s inside it.
// Nothing renews uuid-lua's lease and nothing breaks: A asks at t=20s, B
// (the same split, from t=1s) waits 5s and reads A's write. Without a lock
// the two 5s sections overlap.
func TestShortSection(t *testing.T) {
	tr := play(t, "short-section", "uuid-lua")
	if b := tr.Broken(); len(b) != 0 {
		t.Fatalf("uuid-lua broke %v", b)
	}
	if n := count(tr, trace.KindBelief, "A prepares for 20s outside the lock"); n != 1 {
		t.Errorf("A's prep narrated %d times, want once", n)
	}
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand && e.Actor == "A" {
			if e.T != 20*time.Second {
				t.Errorf("A's first command at t=%s, want t=20s, once prepared", e.T)
			}
			break
		}
	}
	if n := count(tr, trace.KindBelief, "B now holds the lock (token B#1), after 2 attempts (2 commands at the server) and 5s of waiting"); n != 1 {
		t.Error("B does not get the lock after 5s of waiting")
	}
	if v := tr.Events[len(tr.Events)-1].Snap.Resource.Value; v != 98 {
		t.Errorf("stock %d at the end, want 98", v)
	}
	brokeAt(t, play(t, "short-section", "no-lock"), invariant.Mutex, 21*time.Second, "A and B both believe")
}

// Seed 001 (try { … } finally { if (lock.isHeldByCurrentThread())
// lock.unlock(); }): A's work fails at t=2s, it writes nothing, and its
// finally block releases; B, retrying every second, gets the lock at t=2.5s,
// not when A's 30s lease runs out, and sells the item A never sold.
func TestReleaseOnError(t *testing.T) {
	for _, impl := range []string{"uuid-lua", "setnx", "redisson"} {
		tr := play(t, "release-on-error", impl)
		if b := tr.Broken(); len(b) != 0 {
			t.Errorf("%s broke %v", impl, b)
		}
		if n := count(tr, trace.KindBelief, "A's work fails with an error after 2s; it writes nothing, and its finally block releases the lock"); n != 1 {
			t.Errorf("%s: A's failure narrated %d times, want once", impl, n)
		}
		if n := count(tr, trace.KindBelief, "after 3 attempts (3 commands at the server) and 2s of waiting"); n != 1 {
			t.Errorf("%s: B does not get the lock at its third attempt, after 2s of waiting", impl)
		}
		if v := tr.Events[len(tr.Events)-1].Snap.Resource.Value; v != 99 {
			t.Errorf("%s: stock %d at the end, want 99: B's sale, none of A's", impl, v)
		}
	}
	brokeAt(t, play(t, "release-on-error", "no-lock"), invariant.Mutex, 500*time.Millisecond, "A and B both believe")
}

// Seed 001 §3: 看门狗的反面 — a hung business thread in a live process. The
// uncapped watchdog renews until the liveness bound breaks; the capped one
// stops after 10 renewals, and B gets in at t=131s while A still believes.
// Fencing refuses A's write when the stuck call returns.
func TestHungHolder(t *testing.T) {
	tr := play(t, "hung-holder", "uuid-lua-watchdog-uncapped")
	brokeAt(t, tr, invariant.Liveness, 155500*time.Millisecond, "the holder, A, is hung")
	if n := count(tr, trace.KindCommand, "A.watchdog's renewal"); n <= lockimpl.DefaultMaxRenewals {
		t.Errorf("the uncapped watchdog renewed %d times, want more than the cap (%d)", n, lockimpl.DefaultMaxRenewals)
	}

	tr = play(t, "hung-holder", "uuid-lua-watchdog")
	if n := count(tr, trace.KindCommand, "A.watchdog's renewal"); n != lockimpl.DefaultMaxRenewals {
		t.Errorf("the capped watchdog renewed %d times, want %d", n, lockimpl.DefaultMaxRenewals)
	}
	v := brokeAt(t, tr, invariant.Mutex, 131*time.Second, "A and B both believe")
	if a := v.Snap.Clients[0]; !a.Hung || a.Belief != trace.BeliefHolds {
		t.Errorf("A when B gets in: hung %v, belief %s; want hung and still believing", a.Hung, a.Belief)
	}
	brokeAt(t, tr, invariant.Resource, 200500*time.Millisecond, "stale read")

	tr = play(t, "hung-holder", "fenced")
	if tr.Verdict(invariant.Resource).Broken || !tr.Verdict(invariant.Mutex).Broken {
		t.Errorf("fenced broke %v, want mutex only", tr.Broken())
	}
	if !hasEvent(tr, trace.KindResource, "the store rejects A's write") {
		t.Error("the store took A's late write")
	}
}

// Seed 002 可重入设计: a nested call takes the same lock. A non-reentrant lock
// refuses its own holder; the reentrant one counts to two and back.
func TestReentrantCall(t *testing.T) {
	tr := play(t, "reentrant-call", "uuid-lua")
	brokeAt(t, tr, invariant.Liveness, 10*time.Second, "a lock it holds itself")
	if !hasEvent(tr, trace.KindBelief, "A's nested call is refused by the lock A holds itself") {
		t.Error("A's nested call was never refused")
	}

	tr = play(t, "reentrant-call", "reentrant")
	if b := tr.Broken(); len(b) != 0 {
		t.Fatalf("reentrant broke %v", b)
	}
	var counts []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand {
			counts = append(counts, lockValue(e.Snap))
		}
	}
	if want := []string{"A#1=1", "A#1=2", "A#1=1", ""}; strings.Join(counts, ",") != strings.Join(want, ",") {
		t.Errorf("lock after each command = %q, want %q", counts, want)
	}
}

func lockValue(snap trace.Snapshot) string {
	for _, k := range snap.Servers[0].Keys {
		if k.Key == "lock:product:1001" {
			return k.Value
		}
	}
	return ""
}

// Seed 001 §5 and 002 (Redlock 的争议): A holds exactly three of five nodes;
// redis-3 restarts empty (or its clock jumps), and B gathers redis-3..5.
func TestRedlockSecondMajority(t *testing.T) {
	for _, id := range []string{"redlock-restart", "redlock-clock-jump"} {
		tr := play(t, id, "redlock")
		v := brokeAt(t, tr, invariant.Mutex, 8*time.Second, "A and B both believe")
		var ok []string
		for _, e := range tr.Events[:v.Step] {
			if c, _, _ := trace.SplitActor(e.Actor); e.Kind == trace.KindCommand && c == "B" && e.Reply == "OK" {
				ok = append(ok, e.Server)
			}
		}
		if strings.Join(ok, " ") != "redis-3 redis-4 redis-5" {
			t.Errorf("%s: B's OKs came from %v, want redis-3..5", id, ok)
		}
	}
	// The clock jump expires A's key on redis-3 at once, and only there.
	tr := play(t, "redlock-clock-jump", "redlock")
	for _, e := range tr.Events {
		if e.Kind == trace.KindExpire && e.T == 5*time.Second && e.Server != "redis-3" {
			t.Errorf("a key expired on %s at the jump", e.Server)
		}
	}
	if count(tr, trace.KindExpire, "by its clock the TTL has run out") != 1 {
		t.Error("A's key on redis-3 did not expire at the jump")
	}
	// No lease, nothing to expire early.
	if b := play(t, "redlock-clock-jump", "setnx").Broken(); len(b) != 0 {
		t.Errorf("setnx broke %v under a clock jump", b)
	}
}

// antirez's delayed restart: redis-3 stays down for longer than the TTL; B
// cannot gather a majority until A has released.
func TestRedlockDelayedRestart(t *testing.T) {
	tr := play(t, "redlock-delayed-restart", "redlock")
	if b := tr.Broken(); len(b) != 0 {
		t.Fatalf("redlock broke %v", b)
	}
	released, held := time.Duration(-1), time.Duration(-1)
	for _, e := range tr.Events {
		switch {
		case e.Kind == trace.KindBelief && e.Text.EN == "A has released the lock":
			released = e.T
		case e.Kind == trace.KindBelief && strings.HasPrefix(e.Text.EN, "B now holds"):
			held = e.T
		}
	}
	if released != 20*time.Second || held != 28*time.Second {
		t.Errorf("A released at %s, B took the lock at %s; want 20s and 28s", released, held)
	}
	// Each attempt is counted against the majority before its outcome.
	for _, want := range []string{
		"A: 3 of 5 nodes said OK — a majority (3 needed); the SET failed on redis-4 and redis-5",
		"B: 2 of 5 nodes said OK — not a majority (3 needed); the SET failed on redis-3",
		"B: 4 of 5 nodes said OK — a majority (3 needed); the SET failed on redis-3",
	} {
		if !hasEvent(tr, trace.KindBelief, want) {
			t.Errorf("no event says %q", want)
		}
	}
}

// WAIT: the lock is held only once a replica has acknowledged it. A's WAIT
// dies with the primary; B's returns 1 when the old primary rejoins.
func TestFailoverWait(t *testing.T) {
	tr := play(t, "failover-wait", "uuid-lua-wait")
	if b := tr.Broken(); len(b) != 0 {
		t.Fatalf("uuid-lua-wait broke %v", b)
	}
	var waits []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand && strings.HasPrefix(e.Command, "WAIT ") {
			waits = append(waits, e.Actor+"@"+narrate.Secs(e.T)+" "+e.Reply)
		}
	}
	want := []string{
		"A@0.5s (error) connection to redis-1 lost: server is down",
		"B@4s (integer) 1",
		"A@11.5s (integer) 1",
	}
	if strings.Join(waits, "|") != strings.Join(want, "|") {
		t.Errorf("WAITs = %q, want %q", waits, want)
	}
	brokeAt(t, play(t, "failover-wait", "uuid-lua"), invariant.Mutex, 2*time.Second, "A and B both believe")
	// With the only replica promoted and never replaced, WAIT can never be
	// satisfied: nobody gets the lock.
	brokeAt(t, play(t, "failover", "uuid-lua-wait"), invariant.Liveness, time.Minute, "no live client holds the lock")
}

// The oversell is told in numbers: how many sales, how the stock moved, how
// many updates were lost.
func TestOversellInNumbers(t *testing.T) {
	tr := play(t, "oversell", "no-lock")
	var got []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindViolation && e.Invariant == invariant.Resource {
			got = append(got, e.Text.EN+" | "+e.Text.ZH)
		}
	}
	want := []string{
		"B's write is based on a stale read (it read 100; since then A wrote): 2 sales so far, yet the stock went 100 → 99 — A's update is lost" +
			" | B 的写入基于陈旧的读数（它读到 100，之后 A 写入过）：已卖出 2 件，库存却从 100 变成 99——A 的更新丢失了（超卖）",
		"C's write is based on a stale read (it read 100; since then A and B wrote): 3 sales so far, yet the stock went 100 → 99 — the updates of A and B are lost" +
			" | C 的写入基于陈旧的读数（它读到 100，之后 A、B 写入过）：已卖出 3 件，库存却从 100 变成 99——A、B 的更新都丢失了（超卖）",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The Redlock spec: a failed acquire releases on every node, also one that
// did not answer OK. redis-3 ran A's SET but its reply was lost; releasing
// only the nodes that said OK would leave A#1 there for a whole TTL, and B
// could not gather redis-1..3 until it expired.
//
// redsync releases on every node too, but with EVALSHA first: redis-3 has
// never seen the script, answers NOSCRIPT, and the answer is lost, so
// redsync's go-redis adapter never falls back to EVAL and A#1 stays for its
// TTL.
func TestRedlockPartialReleasesEveryNode(t *testing.T) {
	for impl, want := range map[string]time.Duration{"redlock": time.Second, "redsync-redlock": 31 * time.Second} {
		tr := play(t, "redlock-partial", impl)
		if b := tr.Broken(); len(b) != 0 {
			t.Errorf("%s broke %v", impl, b)
		}
		got := time.Duration(-1)
		for _, e := range tr.Events {
			if e.Kind == trace.KindBelief && e.Actor == "B" && strings.HasPrefix(e.Text.EN, "B now holds the lock") {
				got = e.T
				break
			}
		}
		if got != want {
			t.Errorf("%s: B got the lock at %v, want %v", impl, got, want)
		}
	}
}

// Self-check point 5, counted: the spinner sends many commands and gets in
// first, the backoff client few, the fail-fast one a single one and never
// gets the lock.
func TestRetriesCountCommands(t *testing.T) {
	tr := play(t, "retries", "uuid-lua")
	var got []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindBelief && (strings.Contains(e.Text.EN, " now holds the lock") || strings.Contains(e.Text.EN, " gives up")) {
			got = append(got, narrate.Secs(e.T)+" "+e.Text.EN)
		}
	}
	want := []string{
		"0s A now holds the lock (token A#1)",
		"0.1s D gives up after 1 attempt (1 command at the server, 0s)",
		"6.1s B now holds the lock (token B#1), after 31 attempts (31 commands at the server) and 6s of waiting",
		"7.262s C now holds the lock (token C#1), after 7 attempts (7 commands at the server) and 7.162s of waiting",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A nested release that takes the outer hold with it says that the outer
// section now goes on without the lock; a reentrant lock's does not.
func TestNestedReleaseWithoutTheLockIsSaid(t *testing.T) {
	for impl, want := range map[string]bool{"set-nx-ex": true, "redislock": true, "reentrant": false, "no-lock": false} {
		tr := play(t, "reentrant-call", impl)
		said := false
		for _, e := range tr.Events {
			said = said || strings.Contains(e.Text.EN, "the outer section goes on without the lock")
		}
		if said != want {
			t.Errorf("%s: said the outer section goes on without the lock: %v, want %v", impl, said, want)
		}
	}
}
