package realredis_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
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
// snapshot — one after every command and every step of time — is an MGET
// and a PTTL for the run's one key (it was TYPE, PTTL, GET and HGETALL:
// 112 of the 180 lines MONITOR showed). Leaving out every line of a
// connection that named itself so, as the README's filter does, leaves the
// lock's commands exactly, in order.
func TestRealMonitorTellsTheLockFromLockstep(t *testing.T) {
	cfg := servers(t)
	target := connect(t, cfg)
	stop := monitor(t, target.Nodes[0])
	s, _ := scenarios.Lookup("get-then-del")
	impl, _ := lockimpl.Lookup("uuid-get-del")
	live := &sim.Pacer{Next: func(context.Context, string, string) error { return nil }}
	tr, err := s.RunOn(sim.WithPacer(t.Context(), live), impl, target)
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
		case own[m.addr] && slices.Contains([]string{"type", "get", "hgetall", "mget"}, m.cmd):
			ownReads = append(ownReads, m.cmd)
		case !own[m.addr]:
			lock = append(lock, m.cmd)
		}
	}
	var want []string
	for _, e := range tr.Events {
		if e.Kind == sim.KindCommand {
			want = append(want, strings.ToLower(e.Args[0]))
		}
	}
	if !slices.Equal(lock, want) {
		t.Errorf("left out lockstep-observer's lines, MONITOR shows %q; the lock sent %q\nMONITOR:\n%s", lock, want, strings.Join(lines, "\n"))
	}
	if len(ownReads) == 0 || slices.ContainsFunc(ownReads, func(c string) bool { return c != "mget" }) {
		t.Errorf("lockstep's snapshots read with %q; want one MGET each", ownReads)
	}
}
