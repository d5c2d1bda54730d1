package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/plainwatchdog"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Issue #27: a watchdog written as teams write one — a go statement, a
// time.Ticker at a third of the lease, context.WithTimeout around each
// renewal — runs on the lesson's virtual time, as written. It breaks in
// every lesson exactly what the built-in watchdog (Env.Go and Env.Clock,
// uncapped as it is) breaks; in lease-too-short it keeps the lock through
// A's 25 s of work, renewing every 10s/3, and the same lock without its
// watchdog loses it there. Issue #38 item 1: so does one on a chain of
// time.AfterFunc timers, and in hung-holder both renew on while A's
// business call hangs, as the built-in one does: liveness breaks, not the
// mutex (a hang froze them, their renewals counted as the hung call's).
func TestPlainWatchdogBreaksWhatTheBuiltInBreaks(t *testing.T) {
	builtin := mustImpl(t, "uuid-lua-watchdog-uncapped")
	impls := []lockimpl.Info{plainwatchdog.Info, plainwatchdog.AfterFunc, builtin, plainwatchdog.Unwatched}
	results, err := CheckCells(All(), impls)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(results); i += len(impls) {
		plain, ref, unwatched := results[i], results[i+2], results[i+3]
		for _, r := range results[i : i+2] {
			if r.Error != "" {
				t.Errorf("%s × %s could not run: %s", r.Scenario, r.Impl, r.Error)
				continue
			}
			if fmt.Sprint(r.Broken) != fmt.Sprint(ref.Broken) {
				t.Errorf("%s: %s breaks %v, %s %v", r.Scenario, r.Impl, r.Broken, ref.Impl, ref.Broken)
			}
		}
		if plain.Scenario != "lease-too-short" {
			continue
		}
		if !slices.Contains(unwatched.Broken, "mutex") {
			t.Errorf("lease-too-short: the lock without its watchdog keeps mutex (%v): the lesson shows nothing", unwatched.Broken)
		}
		var renewals []time.Duration
		for _, e := range plain.Trace.Events {
			if e.Actor == "A/redis-1" && strings.Contains(e.Command, " lock:product:1001 A#1 10000") && e.Reply == "(integer) 1" {
				renewals = append(renewals, e.T)
			}
		}
		if len(renewals) < 7 || renewals[0] != 10*time.Second/3 || renewals[1] != 2*(10*time.Second/3) {
			t.Errorf("lease-too-short: A's renewals at %v, want one every 10s/3 from 3.33s", renewals)
		}
	}
}
