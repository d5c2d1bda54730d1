package locktest_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/randtoken"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/locktest"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// Issue #38, "Random tokens": a lock that waits a math/rand while before
// each attempt breaks different invariants in two runs of one lesson, and
// locktest says so, with the lesson and the step where the runs part.
// The draws come from one seeded source, so the two runs of gc-pause draw
// different waits the same way every time this test runs. Before, Check
// ran each lesson once and reported whatever that run broke.
func TestVerdictsThatDifferBetweenRuns(t *testing.T) {
	s, err := scenarios.Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	info := randtoken.Jitter(rand.New(rand.NewPCG(1, 0)), 5*time.Second)
	_, err = locktest.Check(info, locktest.Lessons(s), locktest.NoSearch(), locktest.TraceDir(t.TempDir()))
	if err == nil {
		t.Fatal("no error for a lock whose verdicts differ between two runs")
	}
	for _, want := range []string{
		"gc-pause × rand-jitter: its verdicts differ between two runs of the same lesson (first: nothing broken; second: mutex, resource broken)",
		"the runs part at step 2: the first has \"t=1s B B wants the lock\", the second \"t=0.118382478s A SET lock:product:1001 A#1 EX 30 NX → OK\"",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	// Once runs each lesson once: no second run to differ from.
	if _, err := locktest.Check(info, locktest.Lessons(s), locktest.NoSearch(), locktest.Once(), locktest.TraceDir(t.TempDir())); err != nil && strings.Contains(err.Error(), "differ") {
		t.Errorf("with Once: %v", err)
	}
}

// A lock with tokens of its own, and one with Env.Token's, are the same
// run twice in every lesson: no lesson differs.
func TestVerdictsTheSameTwice(t *testing.T) {
	uuidLua, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range []lockimpl.Info{randtoken.Hex, uuidLua} {
		if _, err := locktest.Check(info, locktest.NoSearch(), locktest.TraceDir(t.TempDir())); err != nil && strings.Contains(err.Error(), "differ") {
			t.Errorf("%s: %v", info.Name, err)
		}
	}
}
