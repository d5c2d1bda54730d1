package locktest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/plainwatchdog"
	"github.com/lockstep-sim/lockstep/internal/redistest"
	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Issue #38, item 6: on a real server a watchdog started through Env.Go on
// a time.Ticker ran in every lesson into Release's wait for it while its
// renewal was parked at the gate: the scheduler waited for Release, which
// waited for the watchdog, until the stall bound gave the lesson up ("A
// (in its lock's Release), A.watchdog did not reach a Redis command …").
// An embedded run sees that Release is blocked and lets the renewal go; a
// real one now reads the same from its goroutines' states. Each lesson is
// judged.
func TestRealEnvGoWatchdogIsJudged(t *testing.T) {
	srv := redistest.Start(t)
	lessons := lessonsByID(t, "oversell", "gc-pause", "hung-holder", "reentrant-call", "guard-token")
	problems, err := Check(plainwatchdog.EnvGo, Redis(srv.Addr()), lessons, NoSearch(), TraceDir(t.TempDir()))
	if err != nil {
		t.Fatalf("every lesson should be judged: %v", err)
	}
	for _, p := range problems {
		if strings.Contains(p.String(), "stalled") {
			t.Errorf("%s", p)
		}
	}
}

// sleepRetry tries SET NX three times, sleeping on the wall clock between
// tries (time.Sleep, as a hand-written retry loop does), and releases with
// a compare-and-delete script.
type sleepRetry struct {
	env   lockimpl.Env
	token string
}

func (l *sleepRetry) TryAcquire(ctx context.Context) (bool, error) {
	l.token = l.env.Token()
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(l.env.TTL / 10)
		}
		ok, err := l.env.Nodes[0].SetNX(ctx, l.env.Key, l.token, l.env.TTL).Result()
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

func (l *sleepRetry) Release(ctx context.Context) error {
	n, err := l.env.Nodes[0].Eval(ctx, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`, []string{l.env.Key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return lockimpl.ErrNotHeld
	}
	return nil
}

// Issue #38, item 7: on a real server a lock that sleeps on the wall clock
// between its tries held the scheduler up for the whole sleep, so the run
// fell behind its clock and the lessons were left unjudged ("kept its clock
// only to 661ms … (a busy machine or a slow server)"). A goroutine asleep
// in time.Sleep waits, as a bubble would call it: the run goes on while it
// sleeps, at the run's pace, and each lesson is judged.
func TestRealWallClockSleepIsJudged(t *testing.T) {
	srv := redistest.Start(t)
	info := lockimpl.Info{Name: "sleep-retry", Nodes: 1, New: func(env lockimpl.Env) lockimpl.Lock { return &sleepRetry{env: env} }}
	lessons := lessonsByID(t, "oversell", "get-then-del", "retries", "give-up", "guard-token")
	if _, err := Check(info, Redis(srv.Addr()), lessons, NoSearch(), TraceDir(t.TempDir())); err != nil {
		t.Fatalf("every lesson should be judged: %v", err)
	}
}

// A watchdog on a goroutine of Env.Go's that sends with a context of its
// own (context.Background, a WithTimeout around each renewal) had its
// commands counted as the business goroutine's, because the context named
// no actor: del-other could not run ("A's Release is blocked … nothing in
// the run can wake it") and hung-holder broke mutex. The goroutine says
// whose a command is: the lock breaks, lesson by lesson, what the same
// watchdog on a plain go statement breaks.
func TestEnvGoWatchdogWithItsOwnContext(t *testing.T) {
	verdicts := func(info lockimpl.Info) []string {
		problems, err := Check(info, NoSearch(), Once(), TraceDir(t.TempDir()))
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		var out []string
		for _, p := range problems {
			out = append(out, p.Lesson+" "+p.Invariant)
		}
		return out
	}
	got, want := verdicts(plainwatchdog.EnvGo), verdicts(plainwatchdog.Info)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("through Env.Go it breaks\n%s\nwith a go statement\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Issue #38, item 9: on a real server with no replica the failover lessons
// were left out without a word. Run names each in the log, with why.
func TestRealSkippedLessonsAreLogged(t *testing.T) {
	srv := redistest.Start(t)
	info, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Run(r, info, Redis(srv.Addr()), lessonsByID(t, "failover", "oversell", "failover-wait"), NoSearch(), TraceDir(t.TempDir()))
	if len(r.errs) > 0 {
		t.Fatalf("Run failed: %q", r.errs)
	}
	logs := strings.Join(r.logs, "\n")
	for _, id := range []string{"failover", "failover-wait"} {
		if !strings.Contains(logs, "uuid-lua: skipped "+id+": ") {
			t.Errorf("the log does not name %s as skipped:\n%s", id, logs)
		}
	}
	if !strings.Contains(logs, "uuid-lua: 1 lesson broke nothing: oversell") {
		t.Errorf("the log does not say oversell held:\n%s", logs)
	}
}
