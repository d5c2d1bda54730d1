package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// StartSentinel starts a Redis Sentinel of the test's own (redis-server
// CONF --sentinel) on a free port of 127.0.0.1, with a config file of its
// own that it may rewrite, monitoring nothing, and returns its address once
// it answers. With LOCKSTEP_REAL=1 and no redis-server on the PATH the test
// fails; without LOCKSTEP_REAL=1 it is skipped.
func StartSentinel(t testing.TB) string {
	t.Helper()
	bin := serverBinary(t)
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		port := FreePort(t)
		conf := filepath.Join(dir, fmt.Sprintf("sentinel-%d.conf", port))
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\nprotected-mode no\nsentinel resolve-hostnames no\ndir %s\nlogfile %s\n",
			port, dir, filepath.Join(dir, fmt.Sprintf("sentinel-%d.log", port)))
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, conf, "--sentinel")
		dieWithTest(cmd)
		if err := cmd.Start(); err != nil {
			t.Fatalf("start redis-server --sentinel: %v", err)
		}
		stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if sentinelAnswers(addr) {
			t.Cleanup(stop)
			return addr
		}
		stop()
		if attempt == 2 {
			t.Fatalf("Sentinel on port %d did not come up", port)
		}
	}
}

// sentinelAnswers waits up to 5 s for a Sentinel to answer on addr.
func sentinelAnswers(addr string) bool {
	c := redis.NewSentinelClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c.Ping(context.Background()).Err() == nil {
			return true
		}
	}
	return false
}
