package locktest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/hostile"
	"github.com/lockstep-sim/lockstep/internal/redistest"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// seed writes n keys that are not lockstep's on the server c reaches —
// hostile.Foreign and "important:data" among them, strings, hashes and
// keys with a TTL — and returns each key's DUMP, to compare after.
func seed(t *testing.T, c *redis.Client, n int) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys := []string{hostile.Foreign, "important:data"}
	for i := len(keys); i < n; i++ {
		keys = append(keys, fmt.Sprintf("app:%d", i))
	}
	for i, k := range keys {
		var err error
		switch i % 3 {
		case 0:
			err = c.Set(ctx, k, "value "+k, 0).Err()
		case 1:
			err = c.HSet(ctx, k, "owner", "someone", "n", i).Err()
		default:
			err = c.Set(ctx, k, "lease "+k, time.Hour).Err()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dumps(t, c, keys)
}

func dumps(t *testing.T, c *redis.Client, keys []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range keys {
		d, err := c.Dump(context.Background(), k).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		out[k] = d
	}
	return out
}

// Issue #26: locks that reach beyond their own keys — FLUSHALL, FLUSHDB, a
// script whose body writes a key it did not declare, RENAME onto a foreign
// key, EVAL with a foreign key in KEYS — run through the lessons on a real
// server. Redis refuses each (the run's ACL user). Issue #37: on this
// stock server (the default user has no password) four more log in as
// default, by AUTH, HELLO … AUTH, AUTH in a pipeline and RESET, and then
// send FLUSHALL; the gate refuses the log-in, so FLUSHALL meets the run's
// user. Each is reported as that lock's failure, and the 10,003 keys that
// were there before are there after, unchanged; no key and no ACL user of
// lockstep's is left.
func TestRealHostileLocksAreRefused(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	before := seed(t, c, 10003)
	lesson, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range hostile.Locks() {
		t.Run(info.Name, func(t *testing.T) {
			_, err := Check(info, Redis(srv.Addr()), Lessons(lesson), NoSearch(), TraceDir(t.TempDir()))
			if err == nil {
				t.Fatal("no error: the lock's overstep went through")
			}
			msg := err.Error()
			for _, want := range []string{"the lock implementation " + info.Name, "was refused by redis-1"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error lacks %q: %s", want, msg)
				}
			}
			if !strings.Contains(msg, "NOPERM") && !strings.Contains(msg, "The user executing the script can't") {
				t.Errorf("the error does not give Redis's refusal: %s", msg)
			}
		})
	}
	after := dumps(t, c, slices.Collect(maps.Keys(before)))
	for k, d := range before {
		if after[k] != d {
			t.Errorf("%s changed", k)
		}
	}
	if n := c.DBSize(context.Background()).Val(); n != int64(len(before)) {
		keys := c.Keys(context.Background(), "*").Val()
		t.Errorf("%d keys on the server, %d seeded: %v", n, len(before), keys)
	}
	users, err := c.Do(context.Background(), "ACL", "USERS").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(users, []string{"default"}) {
		t.Errorf("ACL users left: %v", users)
	}
}

// An ordinary lock runs on a real server through locktest.Redis as it does
// embedded: the plain-DEL release is caught deleting another's lock.
func TestRealRedisFindsThePlainDEL(t *testing.T) {
	srv := redistest.Start(t)
	lesson, _ := scenarios.Lookup("del-other")
	problems, err := Check(plainDELInfo, Redis(srv.Addr()), Lessons(lesson), NoSearch(), TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if !containsProblem(problems, "del-other", "ownership") {
		t.Errorf("del-other's 误删 not found on the real server: %v", problems)
	}
}

// Issue #27: a lock written with WATCH and MULTI/EXEC runs on a real
// server as it does embedded (the run's ACL user may send them): its
// compare-and-delete release keeps ownership in the GET-then-DEL race.
func TestRealTransactionLock(t *testing.T) {
	srv := redistest.Start(t)
	var lessons []scenarios.Scenario
	for _, id := range []string{"get-then-del", "del-other"} {
		s, _ := scenarios.Lookup(id)
		lessons = append(lessons, s)
	}
	info, err := lockimpl.Lookup("watch-multi")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(info, Redis(srv.Addr()), Lessons(lessons...), NoSearch(), TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if p.Invariant == "ownership" {
			t.Errorf("%s", p)
		}
	}
}

// Issue #37: a lock whose script never ends (EVAL "while true do end" 0)
// on a real server whose busy threshold is 300ms. The lock's EVAL times
// out; lockstep stops the script itself (SCRIPT KILL) once the server
// takes it, and the cell's error says which lock's script ran away — not
// that the server could not be reached. The cleanup then runs on a server
// that answers: the lock's key and the run's ACL user are gone, and the
// keys that were there before are there after.
func TestRealRunawayScriptIsStopped(t *testing.T) {
	srv := redistest.Start(t, "--busy-reply-threshold", "300")
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	before := seed(t, c, 20)
	lesson, err := scenarios.Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(hostile.Runaway(), Redis(srv.Addr()), Lessons(lesson), NoSearch(), TraceDir(t.TempDir()))
	if err == nil {
		t.Fatal("no error: the runaway script went unnoticed")
	}
	msg := err.Error()
	for _, want := range []string{"the lock implementation hostile-runaway-script: A's EVAL ran away on redis-1",
		"SCRIPT KILL after the server's busy threshold of 300ms"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "could not be reached") {
		t.Errorf("a runaway script reported as an unreachable server: %s", msg)
	}
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("the server does not answer after the run: %v", err)
	}
	after := dumps(t, c, slices.Collect(maps.Keys(before)))
	for k, d := range before {
		if after[k] != d {
			t.Errorf("%s changed", k)
		}
	}
	if n := c.DBSize(ctx).Val(); n != int64(len(before)) {
		t.Errorf("%d keys on the server, %d seeded: %v", n, len(before), c.Keys(ctx, "*").Val())
	}
	if users := c.Do(ctx, "ACL", "USERS").Val(); fmt.Sprint(users) != "[default]" {
		t.Errorf("ACL users left: %v", users)
	}
}
