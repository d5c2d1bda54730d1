// Package redistest starts redis-server processes for tests that need a real
// server with a particular setup (a password, a unix socket, a replica, a
// server to stall). Each server is the test's own: on a free port, without
// persistence, stopped when the test ends. The tests run with
// LOCKSTEP_REAL=1 (RealEnv), and fail then where redis-server is not
// installed; without it they are skipped. .ci/run installs redis-server
// and sets it.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server started for one test.
type Server struct {
	Port   int
	Socket string // its unix socket
	cmd    *exec.Cmd
}

// Addr is the server's TCP address.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// Start starts redis-server with extra arguments (e.g. "--requirepass",
// "pw") and waits until it answers. With LOCKSTEP_REAL=1 and no
// redis-server on the PATH the test fails; without LOCKSTEP_REAL=1 it is
// skipped.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin := serverBinary(t)
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		port := FreePort(t)
		s := &Server{Port: port, Socket: filepath.Join(dir, fmt.Sprintf("redis-%d.sock", port))}
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir,
			"--unixsocket", s.Socket, "--unixsocketperm", "700"}, args...)
		s.cmd = exec.Command(bin, all...)
		dieWithTest(s.cmd)
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		if s.wait(args) {
			t.Cleanup(s.stop)
			return s
		}
		s.stop()
		if attempt == 2 {
			t.Fatalf("redis-server on port %d did not come up", port)
		}
	}
}

// wait waits up to 5 s for the server to answer on its socket.
func (s *Server) wait(args []string) bool {
	opts := &redis.Options{Network: "unix", Addr: s.Socket, MaxRetries: -1, DialTimeout: 100 * time.Millisecond}
	for i, a := range args {
		if a == "--requirepass" && i+1 < len(args) {
			opts.Password = args[i+1]
		}
	}
	c := redis.NewClient(opts)
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c.Ping(context.Background()).Err() == nil {
			return true
		}
	}
	return false
}

func (s *Server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a test may have stalled it
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// Stall stops the server's process (SIGSTOP): it keeps its connections and
// accepts new ones, and answers nothing, as a server that hangs does.
func (s *Server) Stall(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// Resume lets a stalled server go on (SIGCONT).
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// FreePort is a loopback TCP port nothing listens on at the moment.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Kill ends the server's process at once (SIGKILL), as a server that
// crashes: its connections reset, new ones are refused.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
}

// serverBinary is redis-server's path; without it on the PATH the test is
// skipped.
func serverBinary(t testing.TB) string {
	t.Helper()
	return Need(t, "redis-server")[0]
}

// Need skips the test unless LOCKSTEP_REAL=1 (RealEnv), and fails it then
// where one of the programs is not on the PATH; it returns their paths.
func Need(t testing.TB, programs ...string) []string {
	t.Helper()
	if os.Getenv(RealEnv) != "1" {
		t.Skipf("skipped: a test on redis-servers of its own runs with %s=1 (.ci/run sets it)", RealEnv)
	}
	var paths []string
	for _, p := range programs {
		path, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("%s=1, and %s is not installed: %v (apt-get install redis-server redis-tools)", RealEnv, p, err)
		}
		paths = append(paths, path)
	}
	return paths
}

// RealEnv is the variable that asks for the tests on redis-servers of
// their own: they keep to the wall clock and take minutes, so go test
// ./... leaves them out even where redis-server is installed, as it leaves
// out the tests on the servers .ci/run starts (LOCKSTEP_REDIS).
const RealEnv = "LOCKSTEP_REAL"
