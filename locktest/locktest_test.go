package locktest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// plainDEL is a lock with the classic bug: a unique token, but a release
// that deletes the key without checking it (误删).
type plainDEL struct{ env lockimpl.Env }

func (l plainDEL) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.env.Token(), l.env.TTL).Result()
}

func (l plainDEL) Release(ctx context.Context) error {
	return l.env.Nodes[0].Del(ctx, l.env.Key).Err()
}

var plainDELInfo = lockimpl.Info{Name: "plain-del", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return plainDEL{e} }}

// A lock that releases with a plain DEL deletes another holder's lock in
// del-other; locktest says so: the lesson, the step, why, and a trace that
// lockstep --trace opens.
func TestPlainDELIsCaught(t *testing.T) {
	problems, err := Check(plainDELInfo, TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var found *Problem
	for i, p := range problems {
		if p.Lesson == "del-other" && p.Invariant == invariant.Ownership {
			found = &problems[i]
		}
	}
	if found == nil {
		t.Fatalf("no ownership problem in del-other among %v", problems)
	}
	msg := found.String()
	for _, want := range []string{"del-other × plain-del: ownership broken at step", "A deleted the lock that B wrote", "the lesson's fix, uuid-lua-watchdog, keeps ownership", "lockstep --trace "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if found.Allowed {
		t.Error("allowed without Allow")
	}
	data, err := os.ReadFile(found.Trace)
	if err != nil {
		t.Fatal(err)
	}
	// The file is a trace lockstep --trace accepts: valid, marked as a lock
	// from outside the catalogue.
	var tr trace.Trace
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(invariant.IDs()); err != nil || !tr.External || tr.Impl != "plain-del" {
		t.Errorf("trace %s: %v, external %v, impl %s", found.Trace, err, tr.External, tr.Impl)
	}
	// The search finds it too, on its own.
	if !containsProblem(problems, Explored, invariant.Ownership) {
		t.Errorf("the search did not find the 误删: %v", problems)
	}
}

func containsProblem(ps []Problem, lesson, inv string) bool {
	for _, p := range ps {
		if p.Lesson == lesson && p.Invariant == inv {
			return true
		}
	}
	return false
}

// Allow accepts known weaknesses, by lesson and invariant, "*" for all.
func TestAllow(t *testing.T) {
	in, _ := lockimpl.Lookup("uuid-lua")
	problems, err := Check(in, TraceDir(t.TempDir()), NoSearch(),
		Allow("failover", "mutex", "resource"), Allow("gc-pause"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		want := p.Lesson == "failover" || p.Lesson == "gc-pause"
		if p.Allowed != want {
			t.Errorf("%s: allowed %v, want %v", p, p.Allowed, want)
		}
	}
	if !containsProblem(problems, "del-other", invariant.Mutex) {
		t.Errorf("uuid-lua's del-other mutex was not reported: %v", problems)
	}
}

// A lock as the catalogue's uuid-lua-watchdog passes every lesson it is
// meant to, given its known weaknesses; Run does not fail for it.
func TestRunPassesWithItsAllowances(t *testing.T) {
	in, _ := lockimpl.Lookup("uuid-lua-watchdog")
	var opts []Option
	for _, s := range scenarios.All() {
		exp, _ := s.Expected(in.Name)
		if len(exp) > 0 {
			opts = append(opts, Allow(s.ID, exp...))
		}
	}
	Run(t, in, append(opts, TraceDir(t.TempDir()))...)
}

// A lock that panics is reported as a run that could not complete, lesson
// by lesson; the others still run.
func TestPanickingLock(t *testing.T) {
	info := lockimpl.Info{Name: "panics", Nodes: 1, New: func(e lockimpl.Env) lockimpl.Lock { return panics{} }}
	_, err := Check(info, NoSearch(), TraceDir(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "get-then-del × panics could not run") || !strings.Contains(err.Error(), "panicked: boom") {
		t.Errorf("Check: %v", err)
	}
}

type panics struct{}

func (panics) TryAcquire(context.Context) (bool, error) { panic("boom") }
func (panics) Release(context.Context) error            { return nil }

// stuckRelease takes its lock, then waits in Release on a channel it made
// and nobody closes.
type stuckRelease struct {
	env   lockimpl.Env
	never chan struct{}
}

func (l stuckRelease) TryAcquire(ctx context.Context) (bool, error) {
	return l.env.Nodes[0].SetNX(ctx, l.env.Key, l.env.Token(), l.env.TTL).Result()
}
func (l stuckRelease) Release(context.Context) error { <-l.never; return nil }

// Issue #27: a Release that never returns is reported in every lesson at
// once, naming the call, not after a wall-clock timeout per lesson (120 s
// for the lessons, before).
func TestReleaseThatNeverReturns(t *testing.T) {
	info := lockimpl.Info{Name: "stuck-release", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock {
		return stuckRelease{env, make(chan struct{})}
	}}
	_, err := Check(info, NoSearch(), TraceDir(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "oversell × stuck-release could not run") ||
		!strings.Contains(err.Error(), "A's Release is blocked in the lock implementation stuck-release, at github.com/lockstep-sim/lockstep/locktest.stuckRelease.Release (locktest_test.go:") {
		t.Errorf("Check: %v", err)
	}
	// The runtime said the call is blocked: no lesson waited for the
	// wall-clock stall bound to name it.
	if err != nil && strings.Contains(err.Error(), "of wall time") {
		t.Errorf("a lesson named the call only after the wall-clock bound: %v", err)
	}
}

// Issue #37 item 6: a trace is never written through a link someone
// planted under its name. In a trace directory of the user's, the link is
// replaced by the trace and its target left as it was; by default each run
// writes into a new directory of its own, which only it can write in.
func TestTracesNeverFollowALink(t *testing.T) {
	dir, target := t.TempDir(), filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "plain-del-del-other-ownership.json")
	if err := os.Symlink(target, planted); err != nil {
		t.Fatal(err)
	}
	lesson, _ := scenarios.Lookup("del-other")
	problems, err := Check(plainDELInfo, Lessons(lesson), NoSearch(), TraceDir(dir))
	if err != nil || !containsProblem(problems, "del-other", "ownership") {
		t.Fatalf("Check = %v, %v; want del-other's ownership", problems, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, err := os.Lstat(planted); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s is not the trace: %v, %v", planted, fi, err)
	}
	// By default: a directory of the run's own, readable by its owner only.
	problems, err = Check(plainDELInfo, Lessons(lesson), NoSearch())
	if err != nil || len(problems) == 0 || problems[0].Trace == "" {
		t.Fatalf("Check = %v, %v", problems, err)
	}
	own := filepath.Dir(problems[0].Trace)
	defer os.RemoveAll(own)
	fi, err := os.Stat(own)
	if err != nil || fi.Mode().Perm() != 0o700 || !strings.HasPrefix(filepath.Base(own), "lockstep-locktest-") || own == filepath.Join(os.TempDir(), "lockstep-locktest") {
		t.Errorf("default trace directory %s: %v, %v; want a new one of the run's own (0700)", own, fi, err)
	}
}
