package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// monitorProcess is lockstep monitor as a process of its own, for signals:
// its stdout's lines as they come, and its stderr.
type monitorProcess struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	mu     sync.Mutex
	lines  []string
	done   chan struct{} // stdout closed
}

func startMonitor(t *testing.T, args ...string) *monitorProcess {
	t.Helper()
	p := &monitorProcess{cmd: exec.Command(os.Args[0], append([]string{"monitor"}, args...)...), stderr: &strings.Builder{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "LOCKSTEP_TEST_MAIN=1")
	p.cmd.Stderr = lockedWriter{&p.mu, p.stderr}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	return p
}

// lockedWriter writes to w under mu: a process's stderr, read while it
// runs.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// waitFor waits until a line of stdout matches re (ten seconds at most).
func (p *monitorProcess) waitFor(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p.mu.Lock()
		lines := strings.Join(p.lines, "\n")
		p.mu.Unlock()
		if re.MatchString(lines) {
			return
		}
	}
	t.Fatalf("no line matching %s; stdout:\n%s\nstderr:\n%s", re, p.stdout(), p.stderrText())
}

func (p *monitorProcess) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// exit waits for the process and returns its exit code and how long it
// took from now.
func (p *monitorProcess) exit(t *testing.T) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	<-p.done
	err := p.cmd.Wait()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, took
	case errors.As(err, &exit):
		return exit.ExitCode(), took
	}
	t.Fatal(err)
	return -1, took
}

// waitStarted waits until the monitor says it is watching.
func (p *monitorProcess) waitStarted(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.stderrText(), "lockstep: watching "); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the monitor did not start; stderr:\n%s", p.stderrText())
		}
	}
}

// stderrText reads stderr; the process may still write it.
func (p *monitorProcess) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Issue #37 item 10: lockstep monitor on a real server prints a live run's
// commands, each after its run, and leaves lockstep's own reads out; with
// --all it prints every line, no password among them (the monitor's
// own connects with one). Ctrl-C and SIGTERM end it with exit 0 at once
// (within 5 s, however loaded the machine); the server closing its
// connection is exit 2, naming the server.
func TestRealMonitorCommand(t *testing.T) {
	const password = "s3cret-for-monitor"
	srv := redistest.Start(t, "--requirepass", password)
	url := fmt.Sprintf("redis://:%s@%s", password, srv.Addr())
	locks := startMonitor(t, "--redis", url)
	all := startMonitor(t, "--redis", url, "--all")
	locks.waitStarted(t)
	all.waitStarted(t)
	code, out, stderr := runCLI(t, "play", "get-then-del", "--impl", "uuid-get-del", "--redis", url)
	if code != exitOK && code != exitUsage { // exit 2: a verdict the clock made unreliable, on a busy machine
		t.Fatalf("play: exit %d\n%s%s", code, out, stderr)
	}
	run := regexp.MustCompile(`^([0-9a-f]{8}) \d+\.\d+ \[0 127\.0\.0\.1:\d+\] "set" "lockstep:([0-9a-f]{8}):lock:product:1001" "A#1"`)
	locks.waitFor(t, regexp.MustCompile(`"del" "lockstep:[0-9a-f]{8}:lock:product:1001"`))
	all.waitFor(t, regexp.MustCompile(`"scan" "0" "match" "\*lockstep:[0-9a-f]{8}:\*"`))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := locks
		if sig == syscall.SIGTERM {
			p = all
		}
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code, took := p.exit(t); code != exitOK || took > 5*time.Second {
			t.Errorf("monitor after %s: exit %d after %s; want 0 within 5 s; stderr:\n%s", sig, code, took, p.stderrText())
		}
	}
	lines := strings.Split(locks.stdout(), "\n")
	m := run.FindStringSubmatch(lines[0])
	if m == nil || m[1] != m[2] {
		t.Fatalf("the first line is not A's SET after its run:\n%s", locks.stdout())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, m[1]+" ") || strings.Contains(l, `"mget"`) || strings.Contains(l, `"pttl"`) || strings.Contains(l, `"hello"`) {
			t.Errorf("monitor showed %q, not a lock's command of run %s", l, m[1])
		}
	}
	raw := all.stdout()
	for _, want := range []string{`"client" "setname" "lockstep-observer"`, `"hello" "2" "auth" "(redacted)" "(redacted)"`, `"pttl" "lockstep:` + m[1]} {
		if !strings.Contains(raw, want) {
			t.Errorf("monitor --all lacks %s:\n%.3000s", want, raw)
		}
	}
	if strings.Contains(raw, password) {
		t.Errorf("monitor --all shows the password:\n%s", raw)
	}

	// The server closes the monitor's connection.
	gone := startMonitor(t, "--redis", url)
	gone.waitStarted(t)
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: password})
	defer admin.Close()
	list, err := admin.ClientList(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(list) {
		if strings.Contains(line, "cmd=monitor") {
			addr := strings.TrimPrefix(strings.Fields(line)[1], "addr=")
			if err := admin.ClientKillByFilter(t.Context(), "ADDR", addr).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	code, _ = gone.exit(t)
	if want := "lockstep: " + srv.Addr() + " closed the connection: MONITOR ended\n"; code != exitUsage || !strings.HasSuffix(gone.stderrText(), want) {
		t.Errorf("monitor on a server that closed its connection: exit %d, stderr %q; want 2 and %q", code, gone.stderrText(), want)
	}
}

// monitor is a command like the others: in the overview, with help of its
// own (its flags, not the runs'; 80 columns), named by did-you-mean and
// completed, its address completing no file names.
func TestMonitorHelpAndCompletion(t *testing.T) {
	if !strings.Contains(mustRun(t, "--help"), "lockstep monitor --redis ADDR [--all]") {
		t.Error("the overview does not list lockstep monitor")
	}
	out := mustRun(t, "monitor", "--help")
	for _, want := range []string{"lockstep monitor --redis ADDR [--all]", "--redis ADDR", "--all", "lockstep-observer", "Ctrl-C", "exit codes: 0 ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("monitor --help lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"--time-scale", "--disposable", "--no-acl", "--replica"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("monitor --help has %q:\n%s", unwanted, out)
		}
	}
	for line := range strings.Lines(out) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a help line of %d columns: %q", n, line)
		}
	}
	if _, _, stderr := runCLI(t, "monitr"); !strings.Contains(stderr, "did you mean monitor?") {
		t.Errorf("lockstep monitr: %q", stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mon"}, "monitor"},
		{[]string{"help", "mon"}, "monitor"},
		{[]string{"monitor", "--"}, "--redis --all --help"},
		{[]string{"monitor", ""}, ""},
		{[]string{"monitor", "--redis", ""}, ""},
	} {
		if names, directive := complete(t, tc.args...); strings.Join(names, " ") != tc.want || directive != ":4" {
			t.Errorf("complete %q: %q %s; want %q :4", tc.args, names, directive, tc.want)
		}
	}
}

// A signal before the monitor has its connection ends it with exit 0 too,
// saying nothing: Ctrl-C is how a monitor ends, whenever it comes.
func TestMonitorInterruptedWhileConnecting(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalCause("interrupt signal received"))
	var stdout, stderr strings.Builder
	addr := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
	if code := runCtx(ctx, []string{"monitor", "--redis", addr}, &stdout, &stderr); code != exitOK || stdout.Len()+stderr.Len() > 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout.String(), stderr.String())
	}
}
