package sentinel

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// sentinelsScript runs .ci/redis-sentinels with args, bounded: it returns
// its output and whether it succeeded.
func sentinelsScript(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // also in a cleanup
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"../../.ci/redis-sentinels"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// .ci/redis-sentinels starts three Sentinels on free ports (from
// LOCKSTEP_SENTINEL_PORT up, here a port this test holds, which it skips),
// monitoring nothing, prints them and writes them to DIR/env; a second
// start in the same directory is refused; stop stops them all.
func TestRealSentinelsScript(t *testing.T) {
	redistest.Need(t, "bash", "redis-server", "redis-cli")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	from := held.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	out, ok := sentinelsScript(t, []string{"LOCKSTEP_SENTINEL_PORT=" + strconv.Itoa(from)}, "start", dir)
	stopped := false
	t.Cleanup(func() {
		if out, ok := sentinelsScript(t, nil, "stop", dir); !ok && !stopped {
			t.Errorf("stop: %s", out)
		}
	})
	if !ok {
		t.Fatalf("start: %s", out)
	}
	addrs := sentinelsChosen(t, out, from)
	if env, err := os.ReadFile(filepath.Join(dir, "env")); err != nil || string(env) != "export "+out {
		t.Errorf("%s/env: %q, %v; want the printed line as an export", dir, env, err)
	}
	g := group(t, addrs)
	if err := g.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		c := redis.NewSentinelClient(&redis.Options{Addr: a})
		defer c.Close()
		if masters, err := c.Masters(t.Context()).Result(); err != nil || len(masters) != 0 {
			t.Errorf("%s monitors %v, %v; want nothing", a, masters, err)
		}
	}
	if out, ok := sentinelsScript(t, nil, "start", dir); ok || !strings.Contains(out, "stop") {
		t.Errorf("a second start in %s: %v, %q", dir, ok, out)
	}
	if out, ok := sentinelsScript(t, nil, "stop", dir); !ok {
		t.Fatalf("stop: %s", out)
	}
	stopped = true
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still answers after stop", a)
		}
	}
}

// sentinelsChosen is the three addresses start printed, checked: on
// loopback, each on its own port above from and not far from it.
func sentinelsChosen(t *testing.T, out string, from int) []string {
	t.Helper()
	line, ok := strings.CutPrefix(strings.TrimSuffix(out, "\n"), "LOCKSTEP_SENTINELS=")
	if !ok || strings.Contains(line, "\n") {
		t.Fatalf("start printed %q, want one LOCKSTEP_SENTINELS= line", out)
	}
	addrs := strings.Split(line, ",")
	seen := map[int]bool{}
	for _, a := range addrs {
		p, err := strconv.Atoi(strings.TrimPrefix(a, "127.0.0.1:"))
		if err != nil || !strings.HasPrefix(a, "127.0.0.1:") || p <= from || p > from+1000 || seen[p] {
			t.Errorf("start chose %q (from %d): want three ports of 127.0.0.1 above %d", line, from, from)
		}
		seen[p] = true
	}
	if len(addrs) != 3 {
		t.Fatalf("start chose %d Sentinels, want 3: %q", len(addrs), line)
	}
	return addrs
}
