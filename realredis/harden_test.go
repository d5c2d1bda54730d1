package realredis_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/hostile"
	"lockstep/internal/redistest"
	"lockstep/lockimpl"
	"lockstep/realredis"
	"lockstep/scenarios"
	"lockstep/scenarios/sim"
)

// keysIn lists the lockstep keys in database db of a server.
func keysIn(t *testing.T, opts *redis.Options, db int) []string {
	t.Helper()
	o := *opts
	o.DB = db
	c := redis.NewClient(&o)
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*lockstep:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// The lock clients use what --redis says — password, database, unix socket
// — not only the setup checks: against a server with requirepass, the
// GET-then-DEL race breaks what it breaks on embedded servers, and every key
// is written to (and removed from) the database the address names.
func TestRealPasswordDatabaseSocket(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "pw")
	s, _ := scenarios.Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	embedded, err := s.Run(impl)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		db   int
	}{
		{"redis://:pw@" + srv.Addr() + "/1", 1},
		{"unix://:pw@" + srv.Socket + "?db=2", 2},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			target, err := realredis.Connect(t.Context(), realredis.Config{Addrs: []string{tc.addr}, Second: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close()
			opts, _ := realredis.Parse(tc.addr)
			done := make(chan struct{})
			var tr *sim.Trace
			go func() {
				defer close(done)
				tr, err = s.RunOn(t.Context(), impl, target)
			}()
			seen := false
			for running := true; running; {
				select {
				case <-done:
					running = false
				case <-time.After(5 * time.Millisecond):
				}
				seen = seen || len(keysIn(t, opts, tc.db)) > 0
				if k := keysIn(t, opts, 0); len(k) > 0 {
					t.Errorf("keys written to database 0: %v", k)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if !seen {
				t.Errorf("the run never wrote to database %d", tc.db)
			}
			for _, e := range tr.Events {
				if strings.Contains(e.Reply, "NOAUTH") || strings.Contains(e.Reply, "error") {
					t.Errorf("step %d: %s → %s", e.Step, e.Command, e.Reply)
				}
			}
			// A verdict is only as good as the run's clock: on a machine
			// too busy to keep it, the comparison says nothing.
			if tr.Drift > target.Margin() {
				t.Logf("drift %s past the %s margin: verdicts not compared", tr.Drift, target.Margin())
			} else if !slices.Equal(tr.Broken(), embedded.Broken()) {
				t.Errorf("broke %v on the real server, %v embedded", tr.Broken(), embedded.Broken())
			}
			for db := range 3 {
				if k := keysIn(t, opts, db); len(k) > 0 {
					t.Errorf("left in database %d: %v", db, k)
				}
			}
		})
	}
}

// A server that stops answering in the middle of a run (SIGSTOP) does not
// hang lockstep: the run ends with an error that names the server, and an
// interruption (a signal cancels the run's context) ends it within 2 s, its
// cleanup bounded too and saying what it could not remove, and where.
func TestRealStalledServer(t *testing.T) {
	s, _ := scenarios.Lookup("setnx-no-ex")
	impl, _ := lockimpl.Lookup("setnx")
	// start runs the cell until the lock is on the server, then stalls it;
	// it returns the server, the run's end and its key prefix. The two
	// cases run side by side, each on a server of its own: both wait.
	start := func(t *testing.T, ctx context.Context) (*redistest.Server, <-chan error, string) {
		srv := redistest.Start(t)
		target, err := realredis.Connect(t.Context(), realredis.Config{Addrs: []string{srv.Addr()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = target.Close() })
		prefix := target.Prefix
		opts, _ := realredis.Parse(srv.Addr())
		done := make(chan error, 1)
		go func() {
			_, err := s.RunOn(ctx, impl, target)
			done <- err
		}()
		for deadline := time.Now().Add(5 * time.Second); len(keysIn(t, opts, 0)) == 0; time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the run never wrote its lock")
			}
		}
		srv.Stall(t)
		return srv, done, prefix
	}
	t.Run("stalled", func(t *testing.T) {
		t.Parallel()
		srv, done, _ := start(t, t.Context())
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), srv.Addr()) {
				t.Errorf("run on a stalled server: %v; want an error naming %s", err, srv.Addr())
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the run still waits on a stalled server after 15 s")
		}
		srv.Resume(t)
	})
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		srv, done, prefix := start(t, ctx)
		time.Sleep(100 * time.Millisecond)
		cancel()
		begin := time.Now()
		select {
		case err := <-done:
			if took := time.Since(begin); took > 2*time.Second {
				t.Errorf("the run ended %s after the interruption; want within 2 s", took)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("interrupted run: %v, want context.Canceled", err)
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			// The keys the run last saw there by name; or, when the
			// server stalled before the run read its write back, the
			// run's prefix.
			if !strings.Contains(msg, "clean up "+srv.Addr()) || !strings.Contains(msg, prefix) || !strings.Contains(msg, "left there") {
				t.Errorf("the error does not say what was left on %s: %q", srv.Addr(), msg)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the interrupted run still waits on a stalled server after 10 s")
		}
		srv.Resume(t)
	})
}

// --replica is checked before anything touches it: a server that is not a
// replica of the first one is refused, its data and role unchanged.
func TestRealReplicaMustMirrorTheFirstServer(t *testing.T) {
	primary := redistest.Start(t)
	independent := redistest.Start(t)
	other := redistest.Start(t)
	elsewhere := redistest.Start(t, "--replicaof", "127.0.0.1", other.Addr()[len("127.0.0.1:"):])
	ind := redis.NewClient(&redis.Options{Addr: independent.Addr()})
	defer ind.Close()
	if err := ind.Set(t.Context(), "precious", "data", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, primary, replica, want string
	}{
		{"a primary", primary.Addr(), independent.Addr(), "is not a replica but a primary (role:master)"},
		{"another server's replica", primary.Addr(), elsewhere.Addr(), "is a replica of " + other.Addr() + ", not of the first server " + primary.Addr()},
		{"the first server on a socket", "unix://" + primary.Socket, independent.Addr(), "--replica needs the first server over TCP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, err := realredis.Connect(t.Context(), realredis.Config{Addrs: []string{tc.primary}, Replica: tc.replica, Disposable: true})
			if err == nil {
				target.Close()
				t.Fatal("Connect accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
	if v, err := ind.Get(t.Context(), "precious").Result(); err != nil || v != "data" {
		t.Errorf("the independent server's data: %q, %v", v, err)
	}
	if info, _ := ind.Info(t.Context(), "replication").Result(); !strings.Contains(info, "role:master") {
		t.Errorf("the independent server is no longer a primary:\n%s", info)
	}
}

// Two runs on one replica would spoil each other's failover: the second is
// refused while the first holds its lease, and may go once it is released.
func TestRealReplicaLease(t *testing.T) {
	primary := redistest.Start(t, "--repl-diskless-sync-delay", "0")
	replica := redistest.Start(t, "--replicaof", "127.0.0.1", primary.Addr()[len("127.0.0.1:"):])
	cfg := realredis.Config{Addrs: []string{primary.Addr()}, Replica: replica.Addr(), Disposable: true}
	first, err := realredis.Connect(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := realredis.Connect(t.Context(), cfg)
	if err == nil {
		second.Close()
		first.Close()
		t.Fatal("a second run took the replica while the first held it")
	}
	if !strings.Contains(err.Error(), "is in use by another lockstep run ("+strings.TrimSuffix(first.Prefix, ":")) {
		t.Errorf("error %q does not name the run that holds it", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	opts, _ := realredis.Parse(primary.Addr())
	if k := keysIn(t, opts, 0); len(k) > 0 {
		t.Errorf("keys left after the lease was released: %v", k)
	}
	third, err := realredis.Connect(t.Context(), cfg)
	if err != nil {
		t.Fatalf("after the first run ended: %v", err)
	}
	third.Close()
}

// Issue #26: lockstep runs each lock as an ACL user of the run's own. A
// user who may not make one is told so before anything runs, with the way
// on (a user who may, or --no-acl); with --no-acl the lessons run as that
// user, and the gate's own check still keeps FLUSHALL off the server.
func TestRealACLProbe(t *testing.T) {
	srv := redistest.Start(t)
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer admin.Close()
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "limited", "on", ">pw", "~*", "+@all", "-@admin", "-@dangerous", "+info").Err(); err != nil {
		t.Fatal(err)
	}
	addr := "redis://limited:pw@" + srv.Addr()
	_, err := realredis.Connect(ctx, realredis.Config{Addrs: []string{addr}})
	if err == nil || !strings.Contains(err.Error(), "may not make ACL users") || !strings.Contains(err.Error(), "--no-acl") {
		t.Fatalf("Connect as a user without ACL SETUSER: %v", err)
	}
	target, err := realredis.Connect(ctx, realredis.Config{Addrs: []string{addr}, NoACL: true, Second: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	s, _ := scenarios.Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	if _, err := s.RunOn(ctx, impl, target); err != nil {
		t.Errorf("get-then-del with --no-acl: %v", err)
	}
	if err := admin.Set(ctx, "important:data", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	bad := hostile.Locks()[0] // FLUSHALL
	_, err = s.RunOn(ctx, bad, target)
	if err == nil || !strings.Contains(err.Error(), "lockstep's own check: not sent") {
		t.Errorf("FLUSHALL with --no-acl: %v", err)
	}
	if admin.Exists(ctx, "important:data").Val() != 1 {
		t.Error("FLUSHALL reached the server")
	}
}
