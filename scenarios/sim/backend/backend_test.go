package backend

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// epoch is virtual time zero, as the engine starts its embedded servers'
// clocks.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Sub keeps the target's backend: a run among several of one command
// reaches the same servers the same way.
func TestSubKeepsTheBackend(t *testing.T) {
	called := 0
	target := &Target{NewBackend: func(*RealRun, *redis.Options) Backend { called++; return NewEmbedded(epoch, false) }}
	sub := target.Sub("1:")
	if sub.NewBackend == nil {
		t.Fatal("Sub dropped NewBackend")
	}
	sub.NewBackend(nil, nil).Close()
	if called != 1 {
		t.Errorf("the sub-target's NewBackend is not the target's (%d calls)", called)
	}
}

// An embedded server serves the next world once its world is done, and
// meets it empty: no keys, no script its EVALSHA could find, the clock back
// at the epoch. A killed server is not served again.
func TestEmbeddedServerReusedEmpty(t *testing.T) {
	ctx := context.Background()
	dial := func(b *Embedded) *redis.Client {
		return redis.NewClient(&redis.Options{Protocol: 2, DisableIdentity: true,
			Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) { return b.Dial(ctx) }})
	}
	script := redis.NewScript("return redis.call('GET', KEYS[1])")
	b := NewEmbedded(epoch, false)
	rc := dial(b)
	if err := rc.Set(ctx, "lock", "A#1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if err := script.Eval(ctx, rc, []string{"lock"}).Err(); err != nil {
		t.Fatal(err)
	}
	b.Advance(10*time.Second, 10*time.Second)
	first := b.m
	_ = rc.Close()
	b.Close()

	b = NewEmbedded(epoch, false)
	if b.m != first {
		t.Fatal("the server was not served again")
	}
	rc = dial(b)
	defer func() { _ = rc.Close(); b.Close() }()
	if n, err := rc.Exists(ctx, "lock").Result(); err != nil || n != 0 {
		t.Errorf("EXISTS lock = %d, %v; want 0", n, err)
	}
	if ok, err := script.Exists(ctx, rc).Result(); err != nil || ok[0] {
		t.Errorf("SCRIPT EXISTS = %v, %v; want false", ok, err)
	}
	if now, err := rc.Time(ctx).Result(); err != nil || !now.Equal(epoch) {
		t.Errorf("TIME = %v, %v; want %v", now, err, epoch)
	}

	killed := NewEmbedded(epoch, false)
	kc := dial(killed)
	if err := kc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	killed.Kill()
	_ = kc.Close()
	killed.Close()
	if again := NewEmbedded(epoch, false); again.m == killed.m {
		t.Error("a killed server served again")
	} else {
		again.Close()
	}
}

// An embedded restart forgets the scripts as a real one does (Redis keeps
// its script cache in memory only): EVALSHA after it gets NOSCRIPT, and
// the guarded server still refuses what its run's user may not do (#38,
// item 9).
func TestEmbeddedRestartForgetsScripts(t *testing.T) {
	ctx := context.Background()
	b, rc := guardedClient(t)
	script := redis.NewScript("return redis.call('GET', KEYS[1])")
	if err := script.Load(ctx, rc).Err(); err != nil {
		t.Fatal(err)
	}
	if err := script.EvalSha(ctx, rc, []string{"lock"}).Err(); err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("EVALSHA before the restart: %v", err)
	}
	b.Stop()
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	if err := script.EvalSha(ctx, rc, []string{"lock"}).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Errorf("EVALSHA after the restart: %v, want NOSCRIPT", err)
	}
	if err := rc.Set(ctx, "someone-else", "x", 0).Err(); err == nil {
		t.Error("after the restart, SET someone-else was not refused")
	}
}

// A guarded embedded server refuses a foreign key inside a script in
// Redis's words (Redis 7.0.15: the call's error, "script: SHA1, on
// @user_script:LINE."), not miniredis's compile error with its traceback
// (#38, item 9: the README says both answer alike).
func TestEmbeddedScriptRefusalInRedisWords(t *testing.T) {
	ctx := context.Background()
	_, rc := guardedClient(t)
	for _, tc := range []struct{ script, want string }{
		{"return redis.call('GET', 'other')", "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: 3b0b57995a47ae0e1bb20220278b82568130ec0f, on @user_script:1."},
		{"local x = 1\nreturn redis.call('GET', 'other')", "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: 1ff4fe43addb80950d17b70e37e5643bfb0fa93e, on @user_script:2."},
		{"return redis.call('FLUSHALL')", "ERR The user executing the script can't run this command or subcommand script: 0602318aae32acfcc8425701de027a440970423c, on @user_script:1."},
	} {
		cmd := rc.Eval(ctx, tc.script, nil)
		if got := command.AsRedisScriptError(cmd, cmd.Err()); got == nil || got.Error() != tc.want {
			t.Errorf("EVAL %q: %v, want %q", tc.script, got, tc.want)
		}
	}
}

// guardedClient is an embedded server guarding the key "lock", and a
// go-redis client of it; both closed when the test ends.
func guardedClient(t *testing.T) (*Embedded, *redis.Client) {
	t.Helper()
	b := NewEmbedded(epoch, false)
	if err := b.Guard("lock"); err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(&redis.Options{Protocol: 2, DisableIdentity: true,
		Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) { return b.Dial(ctx) }})
	t.Cleanup(func() { _ = rc.Close(); b.Close() })
	return b, rc
}
