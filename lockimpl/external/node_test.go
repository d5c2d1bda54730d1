package external_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/lockimpl/external"
	"github.com/lockstep-sim/lockstep/locktest"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// needsNode skips a test unless LOCKSTEP_REQUIRE_NODE=1 (.ci/run sets
// it): the JavaScript locks' tests start a Node process for every client.
// With it, a machine without Node and clients/node's libraries fails them.
func needsNode(t *testing.T) {
	t.Helper()
	if os.Getenv("LOCKSTEP_REQUIRE_NODE") != "1" {
		t.Skip("skipped: the JavaScript locks' tests run with LOCKSTEP_REQUIRE_NODE=1 (and Node, with (cd clients/node && npm ci))")
	}
	if err := external.NeedsNode(); err != nil {
		t.Fatalf("LOCKSTEP_REQUIRE_NODE=1, and the JavaScript locks' tests need: %v", err)
	}
}

// nodeLocks are the JavaScript locks lockstep lists.
func nodeLocks() []string {
	var names []string
	for _, info := range lockimpl.Others() {
		if strings.HasPrefix(info.Name, "node-") {
			names = append(names, info.Name)
		}
	}
	return names
}

// redlock-acquire-pause: a pause in the middle of the acquire lets the
// first keys expire. redlock 4.2.0 checks the validity left after its
// majority and gives the lock back; @sesamecare-oss/redlock takes a majority
// of votes as a hold, and two clients hold at once.
func TestSesamecareRedlockSkipsTheValidityCheck(t *testing.T) {
	needsNode(t)
	t.Parallel()
	if tr := run(t, "redlock-acquire-pause", "node-redlock"); slices.Contains(tr.Broken(), "mutex") {
		t.Errorf("node-redlock broke mutual exclusion in redlock-acquire-pause\n%s", timeline(t, tr))
	}
	if tr := run(t, "redlock-acquire-pause", "node-sesamecare-redlock"); !slices.Contains(tr.Broken(), "mutex") {
		t.Errorf("node-sesamecare-redlock kept mutual exclusion in redlock-acquire-pause: its missing validity check should let two clients in\n%s", timeline(t, tr))
	}
}

// A Redlock that has its majority does not wait for the slow node's reply:
// the reply comes as the agent's next call runs, and the run goes on (it
// once stalled here).
func TestNodeLockRepliesAfterItsCallEnded(t *testing.T) {
	needsNode(t)
	t.Parallel()
	tr := run(t, "redlock-slow-node", "node-sesamecare-redlock")
	if !slices.Contains(tr.Broken(), "mutex") {
		t.Errorf("node-sesamecare-redlock kept mutual exclusion in redlock-slow-node\n%s", timeline(t, tr))
	}
}

// In failover-release the key is lost before A's own deadline, and
// redis-lock's release, guarded by that deadline alone, deletes B's lock.
func TestRedisLockDeletesTheNewHoldersLock(t *testing.T) {
	needsNode(t)
	t.Parallel()
	tr := run(t, "failover-release", "node-redis-lock")
	if !slices.Contains(tr.Broken(), "ownership") || !strings.Contains(timeline(t, tr), "A deleted the lock that B wrote") {
		t.Errorf("node-redis-lock in failover-release broke %v; want ownership, by A's DEL of B's lock:\n%s", tr.Broken(), timeline(t, tr))
	}
}

func TestNodeLocksGiveTheSameTraceTwice(t *testing.T) {
	needsNode(t)
	t.Parallel()
	locks := nodeLocks()
	if race.Enabled {
		// Under the race detector, lockstep's goroutines are what it
		// watches: one lock of the libraries runs them as every one does.
		locks = locks[:1]
	}
	sameTwiceOf(t, locks, "del-other", "redlock-restart")
}

// TestNodeLocksSameTwiceLong is TestNodeLocksGiveTheSameTraceTwice through
// every lesson, with LOCKSTEP_LONG=1 (CI's long tests): every lesson with
// each lock, and twice with one of them (everyLessonOf).
func TestNodeLocksSameTwiceLong(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") == "" {
		t.Skip("every lesson with each JavaScript lock: LOCKSTEP_LONG=1")
	}
	needsNode(t)
	t.Parallel()
	everyLessonOf(t, nodeLocks(), scenarios.IDs())
}

// everyLessonOf runs every lesson with each of impls and requires the
// lesson's expectation row for it (its expect block has one for every
// lock lockstep lists, these among them); and it runs a lesson twice, to
// compare the runs (sameTwiceOf), with one of them in turn: the first
// lesson with the first lock, the second with the second, and so on
// round, so that every lesson is run twice with some lock and every lock
// runs a share of the lessons twice. Each run starts a process for each
// client, most of a run's CPU: twice with every lock was 187 s of a CI
// run's long tests for the five JavaScript locks.
func everyLessonOf(t *testing.T, impls, lessons []string) {
	for i, id := range lessons {
		s, err := scenarios.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		for j, impl := range impls {
			var tr *trace.Trace
			if i%len(impls) == j {
				tr = twice(t, id, impl)
			} else {
				tr = run(t, id, impl)
			}
			if want, ok := s.Expect[impl]; !ok {
				t.Errorf("%s has no expectation row for %s", id, impl)
			} else if got := tr.Broken(); !slices.Equal(got, want) {
				t.Errorf("%s × %s broke %v; its row says %v", id, impl, got, want)
			}
		}
	}
}

func sameTwiceOf(t *testing.T, impls []string, lessons ...string) {
	for _, impl := range impls {
		for _, id := range lessons {
			twice(t, id, impl)
		}
	}
}

// twice runs a lesson twice with impl, requires the same trace of both
// but for the tokens' raw values, and returns the first.
func twice(t *testing.T, id, impl string) *trace.Trace {
	var body, text [2][]byte
	var first *trace.Trace
	for i := range body {
		tr := run(t, id, impl)
		if i == 0 {
			first = tr
		}
		tokens := tr.Tokens
		tr.Tokens = nil
		b, err := json.MarshalIndent(tr, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		body[i], text[i] = b, []byte(timeline(t, tr))
		tr.Tokens = tokens
	}
	if bytes.Equal(text[0], text[1]) {
		text = body
	}
	if !bytes.Equal(body[0], body[1]) {
		dir := t.TempDir()
		if d := os.Getenv("LOCKSTEP_KEEP_DIFF"); d != "" {
			dir = d
		}
		for i, b := range body {
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%d.json", id, impl, i+1)), b, 0o644)
		}
		t.Errorf("%s × %s: two runs differ beyond their tokens' raw values (LOCKSTEP_KEEP_DIFF=DIR keeps both)\n%s",
			id, impl, around(string(text[0]), string(text[1])))
	}
	return first
}

// around is where two texts first part, a few lines each side, each
// text's own: so that a difference seen once (in CI) says what it was.
// The texts are the runs' timelines, or, when those agree, their JSON.
func around(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	lines := func(l []string) string {
		return strings.Join(l[max(0, i-3):min(len(l), i+8)], "\n")
	}
	return fmt.Sprintf("they part at line %d; the first run:\n%s\nthe second:\n%s", i+1, lines(la), lines(lb))
}

// A lesson's run of a JavaScript lock, its agents' processes started and
// ended with it: the bound is a second.
func BenchmarkNodeLesson(b *testing.B) {
	if err := external.NeedsNode(); err != nil {
		b.Skip(err)
	}
	s, err := scenarios.Lookup("del-other")
	if err != nil {
		b.Fatal(err)
	}
	info, _ := lockimpl.Lookup("node-redlock")
	for b.Loop() {
		if _, err := s.Run(info); err != nil {
			b.Fatal(err)
		}
	}
}

// A JavaScript lock's whole row: every lesson, one after the other. The
// issue's bound is 30 s.
func BenchmarkNodeRow(b *testing.B) {
	if err := external.NeedsNode(); err != nil {
		b.Skip(err)
	}
	info, _ := lockimpl.Lookup("node-redlock")
	for b.Loop() {
		for _, s := range scenarios.All() {
			if _, err := s.Run(info); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The JavaScript example (examples/node/mylock.js) meets, lesson by
// lesson, what the lessons expect of uuid-lua, the Go lock it is (six
// lessons here, every one in TestNodeExampleLong); with a plain DEL for its
// release it breaks ownership in del-other, by its DEL.
func TestNodeExample(t *testing.T) {
	needsNode(t)
	t.Parallel()
	example := filepath.Join("..", "..", "examples", "node", "mylock.js")
	asUUIDLua(t, example, firstLessons())
	plainDelBreaksOwnership(t, example, "const PLAIN_DEL = false;", "const PLAIN_DEL = true;")
}

// TestNodeExampleLong is TestNodeExample's first half through every
// lesson, with LOCKSTEP_LONG=1 (CI's long tests).
func TestNodeExampleLong(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") == "" {
		t.Skip("the JavaScript example through every lesson: LOCKSTEP_LONG=1")
	}
	needsNode(t)
	t.Parallel()
	asUUIDLua(t, filepath.Join("..", "..", "examples", "node", "mylock.js"), scenarios.All())
}

// A JavaScript lock of one's own that fails as a new one does is its
// cell's error, and leaves no process behind.
func TestNodeAdapterFailures(t *testing.T) {
	needsNode(t)
	t.Parallel()
	adapterFailures(t, "lockstep_agent.js", ".js", []failure{
		{"raises", "throw new TypeError('boom');\n", "TypeError: boom"},
		{"garbage", "require('fs').writeSync(1, 'hello\\n');\nexports.make = () => ({});\n",
			`the agent wrote "hello" on its control channel, not a report`},
		{"foreign", "exports.make = () => ({\n  acquire: () => new Promise((resolve, reject) => require('net').connect(1, 'localhost').on('error', reject)),\n  release: async () => {},\n});\n",
			"the lock connects to localhost:1, which is none of the run's nodes"},
		{"spins", "exports.make = () => { for (;;) {} };\n", "stalled"},
	})
}

// simple-redis-mutex hands out a fencing token from a counter every lock of
// the library shares: in gc-pause the lease runs out under A, B gets in
// (mutex), and the resource refuses A's late write, which carries the
// smaller token.
func TestSimpleRedisMutexFencesThePausedHolder(t *testing.T) {
	needsNode(t)
	t.Parallel()
	tr := run(t, "gc-pause", "node-simple-redis-mutex")
	got, tl := tr.Broken(), timeline(t, tr)
	if !slices.Equal(got, []string{"mutex"}) || !strings.Contains(tl, "INCR @simple-redis-mutex:fencing-tokens") ||
		!strings.Contains(tl, "with fencing token 2") {
		t.Errorf("node-simple-redis-mutex in gc-pause broke %v; want mutex alone, its tokens from the shared counter:\n%s", got, tl)
	}
}

// locktest takes a lock in another language as it takes any lockimpl.Info:
// its lessons run twice and compare, and a break is a problem it reports.
func TestLocktestTakesANodeLock(t *testing.T) {
	needsNode(t)
	t.Parallel()
	info, err := lockimpl.Lookup("node-redis-lock")
	if err != nil {
		t.Fatal(err)
	}
	del, err := scenarios.Lookup("failover-release")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := locktest.Check(info, locktest.Lessons(del), locktest.NoSearch(), locktest.TraceDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	for _, p := range problems {
		broken = append(broken, p.Invariant)
	}
	slices.Sort(broken)
	if want := []string{"mutex", "ownership", "resource"}; !slices.Equal(broken, want) {
		t.Errorf("locktest found %v in failover-release × node-redis-lock, want %v: %v", broken, want, problems)
	}
}

// A client that speaks RESP3 (HELLO 3) gets its replies in RESP3: the same
// lock on node-redis, once over RESP2 and once over RESP3, runs del-other
// to the same trace. Before the door spoke RESP3 it refused HELLO 3, and
// node-redis could not connect.
func TestDoorSpeaksRESP3(t *testing.T) {
	needsNode(t)
	t.Parallel()
	want := run(t, "del-other", "uuid-lua").Broken()
	var lines [2]string
	for i, file := range []string{"testdata/noderedis_lock.js", "testdata/resp3_lock.js"} {
		tr := run(t, "del-other", file)
		if !slices.Equal(tr.Broken(), want) || strings.Contains(timeline(t, tr), "error") {
			t.Fatalf("%s in del-other broke %v, uuid-lua %v\n%s", file, tr.Broken(), want, timeline(t, tr))
		}
		_, lines[i], _ = strings.Cut(timeline(t, tr), "\n") // the title names the file
	}
	if lines[0] != lines[1] {
		t.Errorf("the lock over RESP2 and over RESP3 differ:\n%s\n---\n%s", lines[0], lines[1])
	}
}

// An adapter's renew() is called as a watchdog renews: renew_lock.js and
// renew_lock.py, a Lua compare-and-PEXPIRE renewal each, hold where
// uuid-lua-watchdog holds (del-other: the work outlasts the lease) and
// break what it breaks (renew-other, where the paused holder's watchdog
// finds the lock gone), renewal for renewal.
func TestAdapterRenewIsAWatchdog(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"testdata/renew_lock.js", "testdata/renew_lock.py"} {
		if strings.HasSuffix(file, ".js") {
			needsNode(t)
		} else {
			needsPython(t)
		}
		for _, lesson := range []string{"del-other", "renew-other"} {
			want := run(t, lesson, "uuid-lua-watchdog")
			got := run(t, lesson, file)
			if !slices.Equal(got.Broken(), want.Broken()) {
				t.Errorf("%s: %s broke %v, uuid-lua-watchdog %v\n%s", lesson, file, got.Broken(), want.Broken(), timeline(t, got))
			}
			// The renewals that extended the lease (redis-py's first also
			// loads its script).
			renewals := func(tr *trace.Trace) int {
				return len(regexp.MustCompile(`watchdog(/redis-1)?'s renewal: \S+ is extended`).FindAllString(timeline(t, tr), -1))
			}
			if n, m := renewals(got), renewals(want); n != m || n == 0 {
				t.Errorf("%s: %s renewed %d times, uuid-lua-watchdog %d\n%s", lesson, file, n, m, timeline(t, got))
			}
		}
	}
}

// node-simple-redis-mutex-refresh calls the library's refreshTimeout() as
// a watchdog: del-other's long work keeps the lock, which the library
// without it loses.
func TestSimpleRedisMutexRefreshKeepsTheLease(t *testing.T) {
	needsNode(t)
	t.Parallel()
	if tr := run(t, "del-other", "node-simple-redis-mutex"); !slices.Contains(tr.Broken(), "mutex") {
		t.Errorf("node-simple-redis-mutex kept mutual exclusion in del-other\n%s", timeline(t, tr))
	}
	tr := run(t, "del-other", "node-simple-redis-mutex-refresh")
	if len(tr.Broken()) > 0 || !strings.Contains(timeline(t, tr), "PEXPIRE @simple-redis-mutex:lock-") {
		t.Errorf("node-simple-redis-mutex-refresh in del-other broke %v; want none, its lease extended by PEXPIRE\n%s", tr.Broken(), timeline(t, tr))
	}
}

// A message the server publishes reaches a client that subscribed:
// wait_lock.js waits for the holder's release message, or a minute, after
// a refused attempt. In short-section A releases at t=25s while B waits:
// B's next attempt comes at once, not a minute later; and twice, the same
// trace. Before the run subscribed for the client, B waited out the minute.
func TestPubSubWakesTheWaiter(t *testing.T) {
	needsNode(t)
	t.Parallel()
	tr := run(t, "short-section", "testdata/wait_lock.js")
	line := regexp.MustCompile(`(?m)^\s+(\S+)\s+\d+\s+B\s+B now holds the lock`).FindStringSubmatch(timeline(t, tr))
	if line == nil || line[1] != "25.000" {
		t.Errorf("B took the lock at %v, want 25.000, as A's release is published\n%s", line, timeline(t, tr))
	}
	// The subscription's own connection says HELLO as it opens: plumbing,
	// not a step of the client's.
	if strings.Contains(timeline(t, tr), "HELLO") {
		t.Errorf("the subscription's handshake is in the trace\n%s", timeline(t, tr))
	}
	sameTwiceOf(t, []string{"testdata/wait_lock.js"}, "short-section")
}

// Messages published while a client was between calls (C's release at
// t=13s and D's at t=20s in read-write, on the channel every
// simple-redis-mutex lock subscribes to) wait until the client waits for
// no reply. Given while B's SET reply was owed, they at times left
// node-redis's INCR unwritten when the agent reported, and B's acquire
// waited for good (one run in two); six runs, one trace.
func TestMessagesWaitForNoReplyOwed(t *testing.T) {
	needsNode(t)
	t.Parallel()
	var first []byte
	for i := range 6 {
		tr := run(t, "read-write", "node-simple-redis-mutex")
		tr.Tokens = nil
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("run %d of read-write × node-simple-redis-mutex differs from the first", i+1)
		}
	}
}

// A file read is the lock's own work, however it ends: file_lock.js reads
// a file a hundred times between its SET and its GET, and the agent waits
// for the last read, its file's close included, before it says the lock
// waits. Both commands are in flight at once, and the run takes the GET
// first. The agent once missed a read's close (Node's CloseReq), reported
// the SET alone, and the GET came after it: how ioredis, whose connect
// reads its package.json, sent a Redlock's command to one node late (two
// runs of del-other × node-sesamecare-redlock differed).
func TestAFileReadIsTheLocksOwnWork(t *testing.T) {
	needsNode(t)
	t.Parallel()
	for range 3 {
		tr := run(t, "del-other", "testdata/file_lock.js")
		var first []string
		for _, e := range tr.Events {
			if strings.HasPrefix(e.Actor, "A/") && e.Command != "" && len(first) < 2 {
				first = append(first, strings.Fields(e.Command)[0])
			}
		}
		if !slices.Equal(first, []string{"GET", "SET"}) {
			t.Fatalf("A's first commands: %v, want [GET SET]: both in flight at once, the run takes the GET first\n%s", first, timeline(t, tr))
		}
	}
}
