package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// lockstepProcess is lockstep as a process of its own (the test binary,
// see TestMain), so that a test can send it signals.
func lockstepProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOCKSTEP_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stderr
}

// Closing the terminal (SIGHUP), kill (SIGTERM), Ctrl-\ (SIGQUIT) and Ctrl-C
// (SIGINT) in the middle of play failover on real servers: within 2 s the
// process exits 2, saying it was interrupted, with no key of the run left
// and the replica replicating its primary again.
func TestRealSignalsCleanUp(t *testing.T) {
	primary := redistest.Start(t, "--repl-diskless-sync-delay", "0")
	port := primary.Addr()[strings.LastIndex(primary.Addr(), ":")+1:]
	replica := redistest.Start(t, "--replicaof", "127.0.0.1", port)
	p := redis.NewClient(&redis.Options{Addr: primary.Addr()})
	r := redis.NewClient(&redis.Options{Addr: replica.Addr()})
	defer p.Close()
	defer r.Close()
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stderr := lockstepProcess(t, "play", "failover", "--impl", "uuid-lua",
				"--redis", primary.Addr(), "--replica", replica.Addr(), "--disposable")
			// Wait until the run has its lock on the primary.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
				keys, _ := p.Keys(t.Context(), "lockstep:*:lock:*").Result()
				if len(keys) > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the run never took its lock; stderr:\n%s", stderr)
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("exited %s after %s; want within 2 s", took, sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
				t.Errorf("exit: %v, want code %d; stderr:\n%s", err, exitUsage, stderr)
			}
			if !strings.Contains(stderr.String(), "lockstep: interrupted (") {
				t.Errorf("stderr does not say it was interrupted:\n%s", stderr)
			}
			if keys, _ := p.Keys(t.Context(), "*lockstep:*").Result(); len(keys) > 0 {
				t.Errorf("left on the primary: %v", keys)
			}
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				info := r.InfoMap(t.Context(), "replication")
				if info.Item("Replication", "role") == "slave" && info.Item("Replication", "master_port") == port &&
					info.Item("Replication", "master_link_status") == "up" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the replica does not replicate the primary again:\n%s", info)
				}
			}
		})
	}
}

// Files lockstep writes follow the umask like any other file the user
// writes (they were 0600).
func TestWrittenFilesFollowTheUmask(t *testing.T) {
	wholeMatrix(t)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	junit := filepath.Join(dir, "check.xml")
	mustRun(t, "check", "--impl", "set-nx-ex,uuid-lua", "--junit", junit)
	mustRun(t, "docs", filepath.Join(dir, "docs"))
	runCLI(t, "explore", "--impl", "set-nx-ex", "--out", filepath.Join(dir, "found"))
	found, _ := filepath.Glob(filepath.Join(dir, "found", "*.json"))
	pages, _ := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if len(found) == 0 || len(pages) == 0 {
		t.Fatalf("nothing written: %v %v", found, pages)
	}
	for _, f := range append(append([]string{junit}, found...), pages...) {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want -rw-r--r-- (0666 less umask 022)", filepath.Base(f), st.Mode().Perm())
		}
	}
}

// Numbers on the command line are checked, not silently replaced by a
// default.
func TestFlagBounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "get-then-del", "--time-scale", "0"}, "--time-scale 0s out of range; valid: 5ms to 1s"},
		{[]string{"check", "--time-scale", "2s"}, "--time-scale 2s out of range"},
		{[]string{"--time-scale", "1ms"}, "--time-scale 1ms out of range"},
		{[]string{"explore", "--impl", "setnx", "--depth", "0"}, "--depth must be at least 1, not 0"},
		{[]string{"explore", "--impl", "setnx", "--timeout", "-1s"}, "--timeout must be 0 (no limit) or more"},
		{[]string{"--speed", "NaN"}, "speed NaN out of range"},
		{[]string{"--speed", "0"}, "speed 0 out of range"},
		{[]string{"--speed", "+Inf"}, "speed +Inf out of range"},
		// The player's speeds only: 3 would play at 2 (issue #15).
		{[]string{"--speed", "3"}, "speed 3 is not one of the player's speeds; valid: 0.5, 1, 2, 4, 8, 16 steps per second"},
		{[]string{"--speed", "0"}, "speed 0 out of range; valid: 0.5, 1, 2, 4, 8, 16 steps per second"},
		{[]string{"--speed", "32"}, "speed 32 out of range"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// Every speed of the player is accepted (without a terminal the TUI
// prints its usage and exits 0).
func TestSpeeds(t *testing.T) {
	for _, speed := range []string{"0.5", "1", "2", "4", "8", "16"} {
		if code, _, stderr := runCLI(t, "--speed", speed, "--scenario", "gc-pause"); code != exitOK {
			t.Errorf("--speed %s: exit %d, %s", speed, code, stderr)
		}
	}
}

// A run on real servers that kept to its clock so unevenly that a verdict
// near a TTL boundary may be off is reported as unreliable, and play exits
// non-zero (check warns about the same cells).
func TestPlayReportsAnUnreliableVerdict(t *testing.T) {
	target := &backend.Target{Second: 30 * time.Millisecond}
	margin := target.RunMargin(false, 1)
	if err := unreliable(&trace.Trace{Drift: 15 * time.Millisecond}, target, margin, "en"); err != nil {
		t.Errorf("drift within the margin: %v", err)
	}
	err := unreliable(&trace.Trace{Drift: 16 * time.Millisecond}, target, margin, "en")
	if err == nil || !strings.Contains(err.Error(), "the verdict is unreliable: the run kept to its clock only within 16ms, more than its 15ms margins") {
		t.Errorf("drift past the margin: %v", err)
	}
	if err := unreliable(&trace.Trace{Drift: time.Second}, nil, 0, "en"); err != nil {
		t.Errorf("embedded run: %v", err)
	}
	// A run whose failover Sentinel decides runs at SentinelSecond, and
	// its margin is half of that.
	sentinel := &backend.Target{Second: 30 * time.Millisecond, SentinelSecond: 500 * time.Millisecond,
		Sentinels: func(*backend.RealRun, string, *redis.Options, *redis.Options, time.Duration, time.Duration) (backend.SentinelWatch, error) {
			return nil, nil
		}}
	if m := sentinel.RunMargin(true, 1); m != 250*time.Millisecond {
		t.Errorf("a Sentinel failover's margin: %s, want 250ms", m)
	}
	if m := sentinel.RunMargin(true, 5); m != 15*time.Millisecond {
		t.Errorf("Redlock beside Sentinels: margin %s, want 15ms", m)
	}
	_ = context.Background
}

// interruptOnStall starts lockstep with args against a server of its own,
// waits until a key matching pattern is on the server, stalls the server
// (SIGSTOP) and sends SIGINT. It checks that the process exits within 2 s
// with exit code 2, and returns what it wrote to stderr and the keys that
// matched pattern when the server stalled.
func interruptOnStall(t *testing.T, pattern string, args ...string) (stderr string, keys []string) {
	t.Helper()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	cmd, out := lockstepProcess(t, append(args, "--redis", srv.Addr())...)
	for deadline := time.Now().Add(10 * time.Second); len(keys) == 0; time.Sleep(2 * time.Millisecond) {
		keys, _ = c.Keys(t.Context(), pattern).Result()
		if time.Now().After(deadline) {
			t.Fatalf("no key %s on the server; stderr:\n%s", pattern, out)
		}
	}
	srv.Stall(t)
	defer srv.Resume(t)
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("exited %s after SIGINT; want within 2 s", took)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Errorf("exit: %v, want code %d", err, exitUsage)
	}
	if !strings.Contains(out.String(), "lockstep: interrupted (") {
		t.Errorf("stderr does not say it was interrupted:\n%s", out)
	}
	return out.String(), keys
}

// Issue #26 item 6: Ctrl-C to check on a server that stopped answering
// ends it within 2 s (no new cell starts; each running one's cleanup is
// bounded), and says what it had to leave there: every key by name, and
// the run's ACL user. It used to take 3 s for 19 cells (60 s for the
// matrix) and print only "interrupted".
func TestRealCheckInterruptedOnAStalledServer(t *testing.T) {
	out, keys := interruptOnStall(t, "lockstep:*", "check", "--impl", "setnx")
	for _, k := range keys {
		if !strings.Contains(out, k) {
			t.Errorf("stderr does not name the key %s left on the server:\n%s", k, out)
		}
	}
	if !strings.Contains(out, "lockstep-run-") {
		t.Errorf("stderr does not name the ACL user left on the server:\n%s", out)
	}
}

// Issue #26 item 8: Ctrl-C to bench on a server that stopped answering
// ends it within 2 s, naming the server and the keys it had to leave there
// (it took 9 s, said a bare "i/o timeout" and left its baseline key).
func TestRealBenchInterruptedOnAStalledServer(t *testing.T) {
	out, keys := interruptOnStall(t, "*baseline*", "bench", "--impl", "setnx", "--duration", "20s")
	for _, want := range []string{"clean up 127.0.0.1:", keys[0]} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}
