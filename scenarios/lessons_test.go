package scenarios

import (
	"strings"
	"testing"
	"time"

	"lockstep/lockimpl"
	"lockstep/scenarios/sim"
)

// These tests pin each naive implementation's violation to the step where the
// lesson says it happens. The course texts: seeds 000 and 001 (SET NX EX,
// 误删, GET+DEL 竞态, 主从切换丢锁, 进程暂停), seed 004 (超卖).

func play(t *testing.T, scenario, impl string) *sim.Trace {
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
func brokeAt(t *testing.T, tr *sim.Trace, inv string, at time.Duration, want string) sim.Event {
	t.Helper()
	v := tr.Verdict(inv)
	if !v.Broken {
		t.Fatalf("%s × %s: %s did not break", tr.Scenario, tr.Impl, inv)
	}
	e := tr.Events[v.Step]
	if e.Kind != sim.KindViolation || e.Invariant != inv {
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
func cause(tr *sim.Trace, v sim.Event) sim.Event { return tr.Events[v.Step-1] }

func lockKey(t *testing.T, snap sim.Snapshot, server string) sim.KeyState {
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
	return sim.KeyState{}
}

// Seed 001 §1: SETNX without EX — the crashed holder's lock never expires;
// B, waiting from t=5s, is stuck past the 60s bound.
func TestSetnxCrashOrphansTheLock(t *testing.T) {
	for _, impl := range []string{"setnx", "setnx-expire"} {
		t.Run(impl, func(t *testing.T) {
			tr := play(t, "setnx-no-ex", impl)
			v := brokeAt(t, tr, sim.InvLiveness, 65*time.Second, "B has waited 60s")
			if k := lockKey(t, v.Snap, "redis-1"); k.TTL != -1 || k.Writer != "A" {
				t.Errorf("lock key at the violation = %+v, want A's key with no TTL", k)
			}
		})
	}
	// The SETNX+EXPIRE lock was caught between its two commands.
	tr := play(t, "setnx-no-ex", "setnx-expire")
	if !hasEvent(tr, sim.KindSchedule, "holds A before its next command: EXPIRE lock:product:1001 30") {
		t.Error("A was not held between SETNX and EXPIRE")
	}
	// SET NX EX cannot be split: B gets the lock once the TTL runs out.
	tr = play(t, "setnx-no-ex", "set-nx-ex")
	if !hasEvent(tr, sim.KindBelief, "B now holds the lock") {
		t.Error("B never got the expired lock under set-nx-ex")
	}
}

// Seed 001 §2: A's DEL at t=40s removes the lock B took at t=31s (误删); C
// gets in at t=42s while B is still inside.
func TestDelOtherDeletesBsLock(t *testing.T) {
	tr := play(t, "del-other", "set-nx-ex")
	v := brokeAt(t, tr, sim.InvOwnership, 40*time.Second, "A deleted the lock that B wrote")
	if c := cause(tr, v); c.Actor != "A" || c.Command != "DEL lock:product:1001" || c.Reply != "(integer) 1" {
		t.Errorf("cause = %s %q → %q, want A's DEL → 1", c.Actor, c.Command, c.Reply)
	}
	brokeAt(t, tr, sim.InvMutex, 31*time.Second, "A and B both believe")
	if !hasEvent(tr, sim.KindViolation, "B and C both believe") {
		t.Error("no violation for B and C inside together")
	}
	// A token makes A leave B's lock alone; C waits for B.
	tr = play(t, "del-other", "uuid-lua")
	if tr.Verdict(sim.InvOwnership).Broken || hasEvent(tr, sim.KindViolation, "B and C") {
		t.Error("uuid-lua still removed B's lock")
	}
}

// Seed 001 §2 / seed 000 §4: A's GET sees its own token; the lock expires;
// B takes it at t=31s; A's DEL at t=31.5s removes it; C enters at t=32s.
func TestGetThenDelRace(t *testing.T) {
	tr := play(t, "get-then-del", "uuid-get-del")
	v := brokeAt(t, tr, sim.InvOwnership, 31500*time.Millisecond, "A deleted the lock that B wrote")
	if c := cause(tr, v); c.Command != "DEL lock:product:1001" {
		t.Errorf("cause = %q, want A's DEL", c.Command)
	}
	brokeAt(t, tr, sim.InvMutex, 32*time.Second, "B and C both believe")
	// The same timeline with the Lua release: one command, no "between".
	tr = play(t, "get-then-del", "uuid-lua")
	if hasEvent(tr, sim.KindSchedule, "holds A") {
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
	v := brokeAt(t, tr, sim.InvMutex, 2*time.Second, "A and B both believe")
	acquire := tr.Events[v.Step-2]
	if acquire.Actor != "B" || acquire.Server != "redis-2" || acquire.Reply != "OK" {
		t.Errorf("B's acquire = %s on %s → %q, want B on the promoted redis-2 → OK", acquire.Actor, acquire.Server, acquire.Reply)
	}
	// Redlock: one of five servers gone, the majority still holds A's lock.
	tr = play(t, "failover", "redlock")
	if len(tr.Broken()) != 0 {
		t.Errorf("redlock broke %v", tr.Broken())
	}
	if !hasEvent(tr, sim.KindBelief, "B does not get the lock") {
		t.Error("B was never refused under redlock")
	}
}

// Seed 001 §5: A pauses before its write; the lease (and the frozen
// watchdog) runs out; B writes at t=36s; A writes a stale value at t=45.5s.
// Fencing makes the store refuse that write.
func TestGCPauseStaleWrite(t *testing.T) {
	tr := play(t, "gc-pause", "uuid-lua-watchdog")
	brokeAt(t, tr, sim.InvMutex, 31*time.Second, "A and B both believe")
	v := brokeAt(t, tr, sim.InvResource, 45500*time.Millisecond, "A's write is based on a stale read")
	if got := v.Snap.Resource.Value; got != 99 {
		t.Errorf("stock after both writes = %d, want 99 (one sale lost)", got)
	}
	tr = play(t, "gc-pause", "fenced")
	if tr.Verdict(sim.InvResource).Broken {
		t.Fatal("fenced lost an update")
	}
	if !hasEvent(tr, sim.KindResource, "rejects A's write of stock:product:1001 = 99: fencing token 1 < 2") {
		t.Error("the store did not reject A's stale write")
	}
	if got := tr.Events[len(tr.Events)-1].Snap.Resource.Value; got != 99 {
		t.Errorf("final stock = %d, want 99", got)
	}
}

func hasEvent(tr *sim.Trace, kind sim.Kind, text string) bool {
	for _, e := range tr.Events {
		if e.Kind == kind && strings.Contains(e.Text.EN, text) {
			return true
		}
	}
	return false
}
