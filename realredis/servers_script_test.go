package realredis_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// script runs .ci/redis-servers with args, bounded: it returns its output
// and whether it succeeded.
func script(t *testing.T, env []string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // also in a cleanup
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"../.ci/redis-servers"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// .ci/redis-servers starts its six servers on free ports, not on fixed
// ones another run may hold (#28 item 19): from LOCKSTEP_REDIS_PORT up,
// here a port this test holds, which it skips. It prints what it chose and
// writes it to DIR/env; a second start in the same directory is refused;
// stop stops them all.
func TestRealRedisServersScriptPicksFreePorts(t *testing.T) {
	redistest.Need(t, "bash", "redis-server", "redis-cli")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	from := held.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	out, ok := script(t, []string{"LOCKSTEP_REDIS_PORT=" + strconv.Itoa(from)}, "start", dir)
	t.Cleanup(func() {
		if out, ok := script(t, nil, "stop", dir); !ok {
			t.Errorf("stop: %s", out)
		}
	})
	if !ok {
		t.Fatalf("start: %s", out)
	}
	addrs := chosen(t, out, from)
	want := "export " + strings.Replace(out, "\n", "\nexport ", 1)
	if env, err := os.ReadFile(filepath.Join(dir, "env")); err != nil || string(env) != want {
		t.Errorf("%s/env: %q, %v; want the printed lines as exports", dir, env, err)
	}
	for i, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		defer c.Close()
		info, err := c.Info(t.Context(), "replication").Result()
		if err != nil || strings.Contains(info, "role:slave") != (i == 5) ||
			i == 5 && !strings.Contains(info, "master_port:"+strings.TrimPrefix(addrs[0], "127.0.0.1:")) {
			t.Errorf("%s: %v\n%s", a, err, info)
		}
	}
	if out, ok := script(t, nil, "start", dir); ok || !strings.Contains(out, "stop") {
		t.Errorf("a second start in %s: %v, %q", dir, ok, out)
	}
}

// chosen is the six addresses start printed, checked: on loopback, each
// on its own port above from and not far from it.
func chosen(t *testing.T, out string, from int) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "LOCKSTEP_REDIS=") || !strings.HasPrefix(lines[1], "LOCKSTEP_REPLICA=") {
		t.Fatalf("start printed %q; want LOCKSTEP_REDIS=… and LOCKSTEP_REPLICA=…", out)
	}
	addrs := append(strings.Split(strings.TrimPrefix(lines[0], "LOCKSTEP_REDIS="), ","), strings.TrimPrefix(lines[1], "LOCKSTEP_REPLICA="))
	var ports []int
	for _, a := range addrs {
		host, p, err := net.SplitHostPort(a)
		port, _ := strconv.Atoi(p)
		if err != nil || host != "127.0.0.1" || port <= from || port > from+1000 {
			t.Errorf("start chose %s; want 127.0.0.1, a port from %d up (%d is taken)", a, from+1, from)
		}
		ports = append(ports, port)
	}
	if slices.Sort(ports); len(addrs) != 6 || len(slices.Compact(ports)) != 6 {
		t.Errorf("start chose %q; want six servers on six ports", addrs)
	}
	return addrs
}
