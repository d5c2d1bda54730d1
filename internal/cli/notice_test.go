package cli

import (
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// Issue #37 item 8: a run that starts on servers holding what an earlier
// run left says so in one line on stderr, with the lockstep clean command
// that removes it, and leaves it there (another run may be using it):
// play and check alike, once a command. A run on clean servers says
// nothing.
func TestRealRunSaysWhatEarlierRunsLeft(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr())
	// A short lesson (3 s of its time), on a slow time scale: what this
	// tests is the notice, and at the default 30 ms a busy machine (the
	// long tests at nice 15, beside CI's other steps) drifts past the 15 ms
	// margins, and the run adds that its verdict is unreliable.
	scale := []string{"--redis", srv.Addr(), "--time-scale", "200ms"}
	play := append([]string{"play", "oversell"}, scale...)
	if code, _, stderr := runCLI(t, play...); code != exitOK || stderr != "" {
		t.Fatalf("play on a clean server: exit %d, stderr %q", code, stderr)
	}
	do(t, c, "ACL", "SETUSER", "lockstep-run-0123456789abcdef", "on", ">pw", "~lockstep:0a1b2c3d:*", "+get")
	do(t, c, "SET", "{lockstep:0a1b2c3d:gc-pause:fenced:lock}:fence", "7")
	left := stateOf(t, c)
	want := "lockstep: these servers hold what earlier lockstep runs left (1 key, 1 ACL user). This run leaves them alone, as another run may still be using them; if none is, remove them with: lockstep clean --redis " + srv.Addr() + "\n"
	for _, args := range [][]string{play, append([]string{"check", "--scenario", "oversell", "--impl", "no-lock,uuid-lua"}, scale...)} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stdout == "" {
			t.Errorf("%s: exit %d, stdout %q", args[0], code, stdout)
		}
		if stderr != want {
			t.Errorf("%s's stderr:\n%q\nwant\n%q", args[0], stderr, want)
		}
		sameState(t, args[0]+" on a server with leftovers", left, stateOf(t, c))
	}
}

// Issue #37 item 8: what a killed run leaves that stops a run — the lease
// on the replica, the replica left a primary — the run's error names, with
// the lockstep clean command that puts it right, and clean does.
func TestRealRunNamesCleanForWhatStopsIt(t *testing.T) {
	primary, replica := replicaPair(t)
	p, r := client(t, primary.Addr()), client(t, replica.Addr())
	play := []string{"play", "failover", "--redis", primary.Addr(), "--replica", replica.Addr(), "--disposable"}
	clean := []string{"clean", "--redis", primary.Addr(), "--replica", replica.Addr()}
	refused := func(want, removed string) {
		t.Helper()
		code, _, stderr := runCLI(t, play...)
		if suffix := "this puts it right: lockstep " + strings.Join(clean, " ") + "\n"; code != exitUsage || !strings.Contains(stderr, want) || !strings.HasSuffix(stderr, suffix) {
			t.Errorf("play failover: exit %d, stderr %q; want exit 2, %q and %q", code, stderr, want, suffix)
		}
		if code, out, stderr := runCLI(t, clean...); code != exitOK || !strings.Contains(out, removed) {
			t.Errorf("clean: exit %d, stdout %q, stderr %q; want %q", code, out, stderr, removed)
		}
	}
	id := r.InfoMap(t.Context(), "server").Item("Server", "run_id")
	do(t, p, "SET", "lockstep:replica-lease:"+id, "lockstep:0a1b2c3d pid 4242 on host since 2026-01-01T00:00:00Z", "PX", "30000")
	refused("is in use by another lockstep run (lockstep:0a1b2c3d pid 4242", "removed replica lease lockstep:replica-lease:"+id)
	do(t, r, "REPLICAOF", "NO", "ONE")
	refused("promoted from a replica of "+primary.Addr(), "pointed the replica "+replica.Addr()+" back at "+primary.Addr())
	waitReplicates(t, r, primary)
}
