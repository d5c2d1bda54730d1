package cli

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// serverState is what a server holds, as a test compares it before and
// after: each key's DUMP (and whether it has a TTL), and ACL LIST.
type serverState struct {
	keys map[string]string
	acl  []string
}

// stateOf reads c's server whole (SCAN, a test's small keyspace).
func stateOf(t *testing.T, c *redis.Client) serverState {
	t.Helper()
	ctx := t.Context()
	s := serverState{keys: map[string]string{}}
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		dump, err := c.Dump(ctx, k).Result()
		if err != nil {
			t.Fatalf("DUMP %s: %v", k, err)
		}
		if c.PTTL(ctx, k).Val() > 0 {
			dump += " (with a TTL)"
		}
		s.keys[k] = dump
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	acl, err := c.Do(ctx, "ACL", "LIST").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	s.acl = acl
	return s
}

// sameState fails the test where after differs from before, naming what.
func sameState(t *testing.T, what string, before, after serverState) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(after.keys)) {
		if _, ok := before.keys[k]; !ok {
			t.Errorf("%s: key %q is new", what, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before.keys)) {
		if after.keys[k] != before.keys[k] {
			t.Errorf("%s: key %q was %q, is %q", what, k, before.keys[k], after.keys[k])
		}
	}
	if !slices.Equal(before.acl, after.acl) {
		t.Errorf("%s: ACL LIST was\n%s\nis\n%s", what, strings.Join(before.acl, "\n"), strings.Join(after.acl, "\n"))
	}
}

// client is a client of addr, closed when the test ends.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// processor is a client of a server or of a Sentinel.
type processor interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// do runs a command the test needs to succeed.
func do(t *testing.T, c processor, args ...any) {
	t.Helper()
	if err := c.Process(t.Context(), redis.NewCmd(t.Context(), args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// replicaPair is a primary and a replica of it, in sync.
func replicaPair(t *testing.T) (primary, replica *redistest.Server) {
	t.Helper()
	primary = redistest.Start(t, "--repl-diskless-sync-delay", "0")
	replica = redistest.Start(t, "--replicaof", "127.0.0.1", strconv.Itoa(primary.Port))
	waitReplicates(t, client(t, replica.Addr()), primary)
	return primary, replica
}

// waitReplicates waits until the replica c reaches replicates primary,
// in sync, with the same keys.
func waitReplicates(t *testing.T, c *redis.Client, primary *redistest.Server) {
	t.Helper()
	p := client(t, primary.Addr())
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		info := c.InfoMap(t.Context(), "replication")
		if info.Item("Replication", "role") == "slave" && info.Item("Replication", "master_port") == strconv.Itoa(primary.Port) &&
			info.Item("Replication", "master_link_status") == "up" && c.DBSize(t.Context()).Val() == p.DBSize(t.Context()).Val() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica does not replicate %s:\n%v", primary.Addr(), info.Val())
		}
	}
}

// usersOwn puts what a user of the servers has there that is not
// lockstep's, though some of it looks close: keys with and without TTL
// (one with lockstep in its name, one under an uppercase "prefix"), ACL
// users (one named lockstep-…), a master on the Sentinel s, if any.
func usersOwn(t *testing.T, p *redis.Client, s *redis.SentinelClient) {
	t.Helper()
	ctx := t.Context()
	for k, ttl := range map[string]time.Duration{
		"user:1": 0, "session:9": time.Hour, "lockstep:notes": 0, "app:lockstep:0a1b2c3d:x": 0,
		"lockstep:DEADBEEF:x": 0, "lockstep:replica-lease:mine": 0, "{lockstep}:y": time.Hour,
		"lockstep:0a1b2c3d": 0, "lockstep-bench:0a1b2c3:z": 0,
	} {
		if err := p.Set(ctx, k, "value of "+k, ttl).Err(); err != nil {
			t.Fatal(err)
		}
	}
	do(t, p, "HSET", "cart:7", "apples", "3", "pears", "1")
	do(t, p, "ACL", "SETUSER", "alice", "on", ">alices-password", "~app:*", "+get")
	do(t, p, "ACL", "SETUSER", "lockstep-admin", "on", ">pw", "~*", "+@all")
	if s != nil {
		do(t, s, "SENTINEL", "MONITOR", "mymaster", "127.0.0.1", strconv.Itoa(redistest.FreePort(t)), "1")
	}
}

// killedRunLeft puts on the servers what a run killed in its failover
// leaves: its ACL users (on the replica too, which served the lock after
// the failover), its keys with and without TTL, bench's, the lease on the
// replica, its master name on the Sentinel (watching its proxy's port,
// closed now).
func killedRunLeft(t *testing.T, p, r *redis.Client, s *redis.SentinelClient) {
	t.Helper()
	ctx := t.Context()
	rules := func(name, key string) []any {
		args := []any{"ACL", "SETUSER", name}
		for _, rule := range realserver.ACLRules(key, "pw", []string{"get", "set", "del", "eval"}, false) {
			args = append(args, rule)
		}
		return args
	}
	do(t, p, rules("lockstep-run-0123456789abcdef", "lockstep:0a1b2c3d:get-then-del:uuid-lua:lock")...)
	do(t, p, rules("lockstep-probe-00112233aabbccdd", "lockstep:probe")...)
	do(t, r, rules("lockstep-run-fedcba9876543210", "lockstep:0a1b2c3d:failover:uuid-lua:lock")...)
	for k, ttl := range map[string]time.Duration{
		"lockstep:0a1b2c3d:get-then-del:uuid-lua:lock":   time.Minute,
		"{lockstep:0a1b2c3d:gc-pause:fenced:lock}:fence": 0,
		"lockstep:0a1b2c3d:failover:fenced:slower1:lock": 0,
		"lockstep-bench:11223344:baseline":               0,
	} {
		if err := p.Set(ctx, k, "token", ttl).Err(); err != nil {
			t.Fatal(err)
		}
	}
	id := r.InfoMap(ctx, "server").Item("Server", "run_id")
	if err := p.Set(ctx, "lockstep:replica-lease:"+id, "lockstep:0a1b2c3d pid 4242 on host since 2026-01-01T00:00:00Z", 30*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	do(t, s, "SENTINEL", "MONITOR", "lockstep-lockstep-0a1b2c3d-failover-uuid-lua", "127.0.0.1", strconv.Itoa(redistest.FreePort(t)), "1")
}

// masterNames are the names the Sentinel monitors.
func masterNames(t *testing.T, s *redis.SentinelClient) []string {
	t.Helper()
	masters, err := s.Masters(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range masters {
		switch m := m.(type) {
		case map[any]any:
			names = append(names, m["name"].(string))
		case []any:
			names = append(names, m[1].(string))
		}
	}
	slices.Sort(names)
	return names
}

// Issue #37 item 8: lockstep clean removes what a killed run leaves —
// ACL users on the primary and the replica, keys under a run's prefix with
// and without TTL (bench's too), the lease on the replica, the master name
// on the Sentinel, and the replica, promoted or following a relay that is
// gone, pointed back at the primary — and nothing else: the primary's
// keys DUMP as before, ACL LIST is as before on both, the user's master
// is still on the Sentinel, the replica holds the primary's data. --dry-run
// lists the same and removes nothing; a second clean finds nothing.
func TestRealCleanRemovesOnlyLockstepsLeftovers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(t *testing.T, r *redis.Client)
		says  string
	}{
		{"promoted replica", func(t *testing.T, r *redis.Client) {
			do(t, r, "REPLICAOF", "NO", "ONE")
			do(t, r, "SET", "lockstep:0a1b2c3d:failover:uuid-lua:lock", "B's token")
		}, "a primary, promoted from a replica of"},
		{"replica following a relay that is gone", func(t *testing.T, r *redis.Client) {
			do(t, r, "REPLICAOF", "127.0.0.1", strconv.Itoa(redistest.FreePort(t)))
		}, "which does not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			primary, replica := replicaPair(t)
			p, r := client(t, primary.Addr()), client(t, replica.Addr())
			sentinel := redistest.StartSentinel(t)
			s := redis.NewSentinelClient(&redis.Options{Addr: sentinel})
			defer s.Close()
			usersOwn(t, p, s)
			waitReplicates(t, r, primary)
			before, replicaBefore, sentinelBefore := stateOf(t, p), stateOf(t, r), masterNames(t, s)
			killedRunLeft(t, p, r, s)
			tc.leave(t, r)
			args := []string{"clean", "--redis", primary.Addr(), "--replica", replica.Addr(), "--sentinel", sentinel}
			cleanTwice(t, args, tc.says)
			sameState(t, "the primary", before, stateOf(t, p))
			waitReplicates(t, r, primary)
			afterReplica := stateOf(t, r)
			sameState(t, "the replica's ACL", serverState{keys: afterReplica.keys, acl: replicaBefore.acl}, afterReplica)
			sameState(t, "the replica's keys", serverState{keys: before.keys, acl: afterReplica.acl}, afterReplica)
			if got := masterNames(t, s); !slices.Equal(got, sentinelBefore) {
				t.Errorf("the Sentinel monitors %v, want %v as before", got, sentinelBefore)
			}
		})
	}
}

// cleanTwice runs clean with --dry-run, then clean, then clean again, and
// checks what each says.
func cleanTwice(t *testing.T, args []string, replicaSays string) {
	t.Helper()
	leftovers := []string{
		"ACL user lockstep-run-0123456789abcdef on", "ACL user lockstep-probe-00112233aabbccdd on",
		"ACL user lockstep-run-fedcba9876543210 on",
		"key lockstep:0a1b2c3d:get-then-del:uuid-lua:lock on", "key {lockstep:0a1b2c3d:gc-pause:fenced:lock}:fence on",
		"key lockstep:0a1b2c3d:failover:fenced:slower1:lock on", "key lockstep-bench:11223344:baseline on",
		"replica lease lockstep:replica-lease:", "Sentinel master name lockstep-lockstep-0a1b2c3d-failover-uuid-lua on",
	}
	code, out, stderr := runCLI(t, append(args, "--dry-run")...)
	if code != exitOK || stderr != "" {
		t.Fatalf("clean --dry-run: exit %d, stderr %q", code, stderr)
	}
	for _, l := range append(leftovers, replicaSays) {
		if !strings.Contains(out, "found "+l) && !(l == replicaSays && strings.Contains(out, l)) {
			t.Errorf("clean --dry-run does not list %q:\n%s", l, out)
		}
	}
	if !strings.Contains(out, "found 1 Sentinel master name, 4 keys, 1 replica lease, 3 ACL users, 1 replica to point back; --dry-run: nothing removed\n") {
		t.Errorf("clean --dry-run's summary:\n%s", out)
	}
	code, out, stderr = runCLI(t, args...)
	if code != exitOK || stderr != "" {
		t.Fatalf("clean: exit %d, stderr %q\n%s", code, stderr, out)
	}
	for _, l := range leftovers {
		if !strings.Contains(out, "removed "+l) {
			t.Errorf("clean does not say it removed %q:\n%s", l, out)
		}
	}
	if !strings.Contains(out, "pointed the replica ") || !strings.Contains(out, "removed 1 Sentinel master name, 4 keys, 1 replica lease, 3 ACL users, 1 replica to point back\n") {
		t.Errorf("clean's output:\n%s", out)
	}
	if got := strings.Count(out, "\n"); got != len(leftovers)+2 {
		t.Errorf("clean wrote %d lines, want one per leftover and a summary:\n%s", got, out)
	}
	code, out, stderr = runCLI(t, args...)
	if code != exitOK || stderr != "" || !strings.HasPrefix(out, "nothing left by lockstep runs on ") {
		t.Errorf("clean again: exit %d, stderr %q, stdout %q; want nothing found", code, stderr, out)
	}
}

// lockstepUsers are the ACL users on c's server that lockstep made.
func lockstepUsers(t *testing.T, c *redis.Client) []string {
	t.Helper()
	users, err := c.Do(t.Context(), "ACL", "USERS").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(users, func(u string) bool { return !realserver.IsUserName(u) })
}

// Issue #37 item 8: SIGKILL in the middle of check --redis --replica, once
// its failover has promoted the replica, leaves the run's ACL users, its
// keys, the lease on the replica and the replica a primary; lockstep clean
// then leaves the servers as they were before the run: the primary's keys
// and ACL LIST, the replica's ACL LIST, and the replica replicating the
// primary again.
func TestRealCleanAfterAKilledCheck(t *testing.T) {
	primary, replica := replicaPair(t)
	p, r := client(t, primary.Addr()), client(t, replica.Addr())
	usersOwn(t, p, nil)
	waitReplicates(t, r, primary)
	before, replicaBefore := stateOf(t, p), stateOf(t, r)
	cmd, stderr := lockstepProcess(t, "check", "--redis", primary.Addr(), "--replica", replica.Addr(), "--disposable",
		"--scenario", "get-then-del,failover", "--impl", "uuid-lua,fenced")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		role, _ := r.Do(t.Context(), "ROLE").Slice()
		if len(role) > 0 && role[0] == "master" && len(lockstepUsers(t, p)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run's failover never promoted the replica; stderr:\n%s", stderr)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	left := stateOf(t, p)
	t.Logf("left: ACL users %v on the primary, %v on the replica; %d keys on the primary, %d before",
		lockstepUsers(t, p), lockstepUsers(t, r), len(left.keys), len(before.keys))
	code, out, errOut := runCLI(t, "clean", "--redis", primary.Addr(), "--replica", replica.Addr())
	if code != exitOK || errOut != "" {
		t.Fatalf("clean: exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{"removed ACL user lockstep-run-", "removed replica lease lockstep:replica-lease:", "pointed the replica " + replica.Addr() + " back at " + primary.Addr()} {
		if !strings.Contains(out, want) {
			t.Errorf("clean does not say %q:\n%s", want, out)
		}
	}
	t.Logf("clean:\n%s", out)
	sameState(t, "the primary", before, stateOf(t, p))
	waitReplicates(t, r, primary)
	after := stateOf(t, r)
	sameState(t, "the replica", serverState{keys: before.keys, acl: replicaBefore.acl}, after)
}

// clean is a command like the others: in the overview, with help of its
// own (its flags, not the runs' --time-scale, --disposable, --no-acl; 80
// columns), named by did-you-mean and completed, its flags' addresses
// completing no file names.
func TestCleanHelpAndCompletion(t *testing.T) {
	if !strings.Contains(mustRun(t, "--help"), "lockstep clean --redis ADDR[,ADDR…] [--replica ADDR] [--sentinel ADDR[,ADDR…]]") {
		t.Error("the overview does not list lockstep clean")
	}
	out := mustRun(t, "clean", "--help")
	for _, want := range []string{"lockstep clean --redis LIST [--replica ADDR] [--sentinel LIST] [--dry-run]", "--redis ADDR[,ADDR...]",
		"--replica ADDR", "--sentinel ADDR[,ADDR...]", "--cluster ADDR[,ADDR...]", "--dry-run", "exit codes: 0 ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("clean --help lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"--time-scale", "--disposable", "--no-acl"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("clean --help has %q:\n%s", unwanted, out)
		}
	}
	for line := range strings.Lines(out) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a help line of %d columns: %q", n, line)
		}
	}
	if _, _, stderr := runCLI(t, "clen"); !strings.Contains(stderr, "did you mean clean?") {
		t.Errorf("lockstep clen: %q", stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cle"}, "clean"},
		{[]string{"help", "cle"}, "clean"},
		{[]string{"clean", "--"}, "--redis --cluster --replica --sentinel --dry-run --help"},
		{[]string{"clean", ""}, ""},
	} {
		if names, directive := complete(t, tc.args...); strings.Join(names, " ") != tc.want || directive != ":4" {
			t.Errorf("complete %q: %q %s; want %q :4", tc.args, names, directive, tc.want)
		}
	}
	for _, flag := range []string{"--redis", "--cluster", "--replica", "--sentinel"} {
		if names, directive := complete(t, "clean", flag, ""); len(names) > 0 || directive != ":4" {
			t.Errorf("complete clean %s: %q %s; want no candidates, no files (:4)", flag, names, directive)
		}
	}
}
