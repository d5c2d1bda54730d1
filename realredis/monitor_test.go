package realredis_test

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/internal/redistest"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// monitor records the lines redis-cli MONITOR would show on the server at
// opts. Its result stops recording once a line containing last has come
// (or after ten seconds), and returns the lines.
func monitor(t *testing.T, opts *redis.Options) func(last string) []string {
	t.Helper()
	network := opts.Network
	if network == "" {
		network = "tcp"
	}
	c, err := net.DialTimeout(network, opts.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if opts.Password != "" {
		fmt.Fprintf(c, "AUTH %s %s\r\n", cmp.Or(opts.Username, "default"), opts.Password)
	}
	fmt.Fprintf(c, "MONITOR\r\n")
	var mu sync.Mutex
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(c)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			mu.Lock()
			lines = append(lines, strings.TrimSuffix(strings.TrimPrefix(l, "+"), "\r\n"))
			mu.Unlock()
		}
	}()
	return func(last string) []string {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			came := slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, last) })
			mu.Unlock()
			if came {
				break
			}
		}
		c.Close()
		<-done
		return lines
	}
}

// monitorLine is a line of MONITOR: `1700000000.123456 [0 127.0.0.1:50312]
// "get" "key"`; addr is "lua" for a command a script called.
type monitorLine struct {
	addr, cmd, text string
}

func parseMonitor(l string) (monitorLine, bool) {
	f := strings.Fields(l)
	if len(f) < 4 || !strings.HasPrefix(f[1], "[") {
		return monitorLine{}, false
	}
	return monitorLine{addr: strings.TrimSuffix(f[2], "]"), cmd: strings.ToLower(strings.Trim(f[3], `"`)), text: l}, true
}

// One live get-then-del run as MONITOR on its server shows it (#28 item 9).
// lockstep's own lines come from connections named lockstep-observer, and a
// snapshot — one after every command and every step of time — is a PTTL
// and a GETRANGE for the run's one key (it was TYPE, PTTL, GET and
// HGETALL: 112 of the 180 lines MONITOR showed; then an MGET, which read a
// lock's value whole). Leaving out every line of a
// connection that named itself so, as the README's filter does, leaves the
// lock's commands exactly, in order.
func TestRealMonitorTellsTheLockFromLockstep(t *testing.T) {
	cfg := servers(t)
	target := connect(t, cfg)
	stop := monitor(t, target.Nodes[0])
	s, _ := scenarios.Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	live := &backend.Pacer{Next: func(context.Context, string, string) error { return nil }}
	tr, err := s.RunOn(backend.WithPacer(t.Context(), live), impl, target)
	if err != nil {
		t.Fatal(err)
	}
	lines := stop(`"scan" "0" "match" "*` + target.Prefix)
	own := map[string]bool{}
	var ownReads, lock []string
	for _, l := range lines {
		m, ok := parseMonitor(l)
		switch {
		case !ok:
		case strings.Contains(l, `"setname" "`+realserver.ObserverName+`"`):
			own[m.addr] = true
		case !strings.Contains(l, target.Prefix):
			// another test's, or a connection's handshake
		case own[m.addr] && slices.Contains([]string{"type", "get", "hgetall", "mget", "getrange", "strlen"}, m.cmd):
			ownReads = append(ownReads, m.cmd)
		case !own[m.addr]:
			lock = append(lock, m.cmd)
		}
	}
	var want []string
	for _, e := range tr.Events {
		if e.Kind == trace.KindCommand {
			want = append(want, strings.ToLower(e.Args[0]))
		}
	}
	if !slices.Equal(lock, want) {
		t.Errorf("left out lockstep-observer's lines, MONITOR shows %q; the lock sent %q\nMONITOR:\n%s", lock, want, strings.Join(lines, "\n"))
	}
	if len(ownReads) == 0 || slices.ContainsFunc(ownReads, func(c string) bool { return c != "getrange" }) {
		t.Errorf("lockstep's snapshots read with %q; want one GETRANGE each", ownReads)
	}
}

// watched is what lockstep monitor made of one line: the line, and the
// run it showed it under ("" for a line it left out).
type watched struct {
	line realredis.MonitorLine
	run  string
}

// watch runs lockstep monitor's reading and filter on the server at addr
// in the background. Its result waits until a line with a key of the run
// last (8 hex digits) has come (or ten seconds), stops, and returns every
// line with what the filter said of it.
func watch(t *testing.T, addr string) func(last string) []watched {
	t.Helper()
	m, err := realredis.OpenMonitor(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	filter := realredis.NewMonitorFilter(m.Observers())
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	var lines []watched
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, func(raw string) error {
			l, ok := realredis.ParseMonitorLine(raw)
			if !ok {
				return fmt.Errorf("not a line of MONITOR: %q", raw)
			}
			run, _ := filter.Lock(l)
			mu.Lock()
			lines = append(lines, watched{l, run})
			mu.Unlock()
			return nil
		})
	}()
	return func(last string) []watched {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			came := slices.ContainsFunc(lines, func(w watched) bool { return w.run == last })
			mu.Unlock()
			if came {
				break
			}
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the monitor stopped: %v", err)
		}
		return lines
	}
}

// observer is a client that names itself as lockstep's own connections
// do, dialling from local port port (any, if 0).
func observer(addr string, port int) *redis.Client {
	o := &redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, DisableIdentity: true, Dialer: fromPort(port)}
	realserver.Named(o)
	return redis.NewClient(o)
}

// churnConns is how many observer connections the test opens and closes
// beside the check: as many as it takes for the kernel to hand the ports
// out again (Linux steps through its 28,232 ephemeral ports two at a
// time for one destination), so that the live run's clients may get
// ports observers had, as after a full check --redis.
const churnConns = 15000

// observe is one short connection of an observer's, as lockstep's are
// (HELLO 3, CLIENT SETNAME lockstep-observer, a reading of key), in one
// write: cheaper than go-redis's, thousands of times over.
func observe(addr, key string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "HELLO 3\r\nCLIENT SETNAME %s\r\nMGET %s\r\nPING\r\n", realserver.ObserverName, key); err != nil {
		return err
	}
	var got []byte
	buf := make([]byte, 4096)
	for !strings.HasSuffix(string(got), "+PONG\r\n") {
		n, err := c.Read(buf)
		if err != nil {
			return fmt.Errorf("an observer's connection: %w (after %q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	return nil
}

// lockClient is a client that connects as the locks' do (HELLO 2, no
// name), from local port port.
func lockClient(addr string, port int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, Protocol: 2, DisableIdentity: true, Dialer: fromPort(port)})
}

func fromPort(port int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: 2 * time.Second}
		if port != 0 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}
		}
		return d.DialContext(ctx, network, addr)
	}
}

// reusePort has an observer read from a local port, then a lock's client
// write from the same port once the server has closed the observer's
// connection (server first: the port is free at once, with no TIME_WAIT
// on this side). It returns the port's address as MONITOR names it.
func reusePort(t *testing.T, addr, run string) string {
	t.Helper()
	ctx := t.Context()
	port := redistest.FreePort(t)
	obs := observer(addr, port)
	if err := obs.MGet(ctx, "lockstep:"+run+":lock:product:1001").Err(); err != nil {
		t.Fatal(err)
	}
	admin := redis.NewClient(&redis.Options{Addr: addr})
	defer admin.Close()
	from := fmt.Sprintf("127.0.0.1:%d", port)
	if err := admin.ClientKillByFilter(ctx, "ADDR", from).Err(); err != nil {
		t.Fatal(err)
	}
	obs.Close()
	lock := lockClient(addr, port)
	defer lock.Close()
	var err error
	for range 50 { // the kernel may take a moment to free the port
		if err = lock.Set(ctx, "lockstep:"+run+":lock:product:1001", "C#1", 0).Err(); err == nil {
			return from
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no second connection from %s: %v", from, err)
	return ""
}

// commandsUnder are the arguments of the lines monitor showed of the run
// whose keys have prefix, and their addresses; a script's commands
// ([0 lua]) apart, which are no step of a trace.
func commandsUnder(lines []watched, prefix string) (args [][]string, addrs []string) {
	for _, w := range lines {
		if w.run != "" && w.line.Addr != "lua" && names(w.line, prefix) {
			args, addrs = append(args, w.line.Args), append(addrs, w.line.Addr)
		}
	}
	return args, addrs
}

func argsUnder(lines []watched, prefix string) [][]string {
	args, _ := commandsUnder(lines, prefix)
	return args
}

// luaUnder counts the [0 lua] lines monitor showed of keys under prefix.
func luaUnder(lines []watched, prefix string) int {
	n := 0
	for _, w := range lines {
		if w.run != "" && w.line.Addr == "lua" && names(w.line, prefix) {
			n++
		}
	}
	return n
}

// names says whether a key l names is under prefix, or its hash tag is.
func names(l realredis.MonitorLine, prefix string) bool {
	return slices.ContainsFunc(l.Args[1:], func(a string) bool {
		return strings.HasPrefix(a, prefix) || strings.HasPrefix(a, "{"+prefix)
	})
}

// commands are the commands of a trace, as sent.
func commands(tr *trace.Trace) [][]string {
	var out [][]string
	for _, e := range tr.Events {
		// The gate's own answers (an EVALSHA of a script this run has not
		// given the server) never reach it.
		if e.Kind == trace.KindCommand && !strings.HasSuffix(e.Reply, "not sent)") {
			out = append(out, e.Args)
		}
	}
	return out
}

// Issue #37 item 10: lockstep monitor shows exactly the lock's commands of
// a live get-then-del run after a check ran beside it on the same server,
// with thousands of observer connections (a full check --redis makes some
// 2,500), some of whose ports the run's clients may get again. The
// observers open before it started (CLIENT LIST) stay left out; a lock's
// client on a port an observer just had (forced here) shows; so does
// every command of each of the check's cells, and nothing else. The
// README's awk filter hid a client on a reused port for as long as it
// ran.
func TestRealMonitorShowsTheLockAfterACheck(t *testing.T) {
	srv := redistest.Start(t)
	addr := srv.Addr()
	ctx := t.Context()
	early := observer(addr, 0)
	defer early.Close()
	if err := early.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	stop := watch(t, addr)
	const stray, end = "0badc0de", "ffffffff"
	if err := early.MGet(ctx, "lockstep:"+stray+":lock:product:1001").Err(); err != nil {
		t.Fatal(err)
	}
	reused := reusePort(t, addr, stray)

	// The check beside it, with as many observers again as a full one.
	cfg := realredis.Config{Addrs: []string{addr}}
	checkTarget := connect(t, cfg)
	s, _ := scenarios.Lookup("get-then-del")
	var impls []lockimpl.Info
	for _, name := range []string{"uuid-get-del", "uuid-lua", "fenced", "redsync"} {
		in, err := lockimpl.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		impls = append(impls, in)
	}
	var churn sync.WaitGroup
	for w := range 8 {
		churn.Go(func() {
			for i := range churnConns / 8 {
				if err := observe(addr, fmt.Sprintf("lockstep:%s:lock:%d:%d", stray, w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	results, err := scenarios.CheckCellsOn(ctx, checkTarget, []scenarios.Scenario{s}, impls, 8)
	churn.Wait()
	if err != nil {
		t.Fatal(err)
	}

	// The live run, after it.
	target := connect(t, cfg)
	impl, _ := lockimpl.Lookup("uuid-get-del")
	live := &backend.Pacer{Next: func(context.Context, string, string) error { return nil }}
	tr, err := s.RunOn(backend.WithPacer(ctx, live), impl, target)
	if err != nil {
		t.Fatal(err)
	}
	last := lockClient(addr, 0)
	defer last.Close()
	if err := last.Get(ctx, "lockstep:"+end+":done").Err(); err != nil && !errors.Is(err, redis.Nil) {
		t.Fatal(err)
	}
	lines := stop(end)

	// Every run exactly: the live one, and each cell of the check (its
	// last run: a cell that drifted ran again, slower, under keys of its
	// own).
	got, addrs := commandsUnder(lines, target.Prefix)
	if want := commands(tr); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("lockstep monitor showed of the live run:\n%s\nthe lock sent %d commands:\n%s", argLines(got), len(want), argLines(want))
	}
	t.Logf("the live run: %d commands, from %s", len(got), strings.Join(slices.Compact(slices.Sorted(slices.Values(addrs))), ", "))
	for _, r := range results {
		prefix := checkTarget.Prefix + r.Scenario + ":" + r.Impl + ":"
		for n := range r.Slower {
			prefix += fmt.Sprintf("slower%d:", n+1)
		}
		if got, want := argsUnder(lines, prefix), commands(r.Trace); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("lockstep monitor showed of the check's %s × %s:\n%s\nthe lock sent %d commands:\n%s", r.Scenario, r.Impl, argLines(got), len(want), argLines(want))
		}
	}
	if lua := luaUnder(lines, checkTarget.Prefix); lua == 0 {
		t.Error("no lua line of the check's uuid-lua and redsync")
	}
	if s, a := commandsUnder(lines, "lockstep:"+stray+":"); len(s) != 1 || s[0][0] != "set" || a[0] != reused {
		t.Errorf("of the stray observers and the reused port, monitor showed %q from %q; want the SET from %s only", s, a, reused)
	}
	runs := []string{hexOf(target.Prefix), hexOf(checkTarget.Prefix), stray, end}
	observers := map[string]bool{}
	for _, w := range lines {
		if w.line.Command() == "client" && len(w.line.Args) > 2 && w.line.Args[2] == realserver.ObserverName {
			observers[w.line.Addr] = true
		}
		if w.run != "" && !slices.Contains(runs, w.run) {
			t.Errorf("monitor showed %s under run %s, which is none of this test's", w.line.Raw, w.run)
		}
	}
	again := 0
	for _, a := range addrs {
		if observers[a] {
			again++
		}
	}
	t.Logf("%d lines, %d observer addresses; %d of the live run's commands came from an address an observer had had", len(lines), len(observers), again)
}

// hexOf is the run of a prefix: its 8 hex digits.
func hexOf(prefix string) string {
	return strings.TrimSuffix(strings.TrimPrefix(prefix, "lockstep:"), ":")
}

func argLines(args [][]string) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "  %q\n", a)
	}
	return b.String()
}
