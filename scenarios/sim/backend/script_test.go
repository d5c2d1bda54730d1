package backend

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"testing"

	"github.com/alicebob/miniredis/v2"
	mrserver "github.com/alicebob/miniredis/v2/server"
)

// respConn sends commands on a raw connection and parses each reply as
// miniredis's own tests do.
type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func sha1hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (rc respConn) do(t *testing.T, args ...string) any {
	t.Helper()
	msg := "*" + strconv.Itoa(len(args)) + "\r\n"
	for _, a := range args {
		msg += "$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n"
	}
	if _, err := rc.c.Write([]byte(msg)); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	reply, err := mrserver.ParseReply(rc.r)
	if err != nil {
		return "error: " + err.Error() // an error reply
	}
	return reply
}

// scriptCalls are what the differential test sends both servers: the
// scripts of lockstep's locks and the corners of miniredis's Lua glue
// (replies of every type, errors raised and returned, globals refused,
// commands a script may not call, RESP3 inside a script), and the calls the
// fast path leaves to miniredis (a transaction, an unknown SHA1, malformed
// key counts).
var scriptCalls = [][]string{
	{"EVAL", "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 30000)", "1", "lock", "A#1"},
	{"EVAL", "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 30000)", "1", "lock", "B#1"},
	{"EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end", "1", "lock", "B#1"},
	{"EVALSHA", sha1hex("return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 30000)"), "1", "lock", "C#1"},
	{"EVALSHA", sha1hex("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"), "1", "lock", "C#1"},
	{"SCRIPT", "LOAD", "return {KEYS[1], ARGV[1], #KEYS, #ARGV}"},
	{"EVALSHA", sha1hex("return {KEYS[1], ARGV[1], #KEYS, #ARGV}"), "1", "k", "a", "b"},
	{"EVALSHA", sha1hex("not loaded"), "0"},
	{"EVAL", "return {1, 'two', {3, false, 'four'}, 5.9, true}", "0"},
	{"EVAL", "return redis.call('GET', 'missing')", "0"},
	{"EVAL", "return redis.error_reply('MY error')", "0"},
	{"EVAL", "return redis.status_reply('FINE')", "0"},
	{"EVAL", "return redis.pcall('INCR', KEYS[1])", "1", "lock"},
	{"EVAL", "return redis.call('INCR', KEYS[1])", "1", "lock"},
	{"EVAL", "leaked = 1 return 1", "0"},
	{"EVAL", "return (", "0"},
	{"EVAL", "return redis.call('EVAL', 'return 1', '0')", "0"},
	{"EVAL", "return cjson.encode({a = {1, 2}})", "0"},
	{"EVAL", "return cjson.decode(ARGV[1]).b", "0", `{"b": "c"}`},
	{"EVAL", "redis.call('HSET', KEYS[1], 'f', 'v') redis.setresp(3) return redis.call('HGETALL', KEYS[1])", "1", "h"},
	{"EVAL", "return redis.call('HGETALL', KEYS[1])", "1", "h"},
	{"EVAL", "return type(os.clock())", "0"},
	{"EVAL", "return redis.sha1hex('x')", "0"},
	{"EVAL", "return redis.call('PEXPIRE', KEYS[1], ARGV[1])", "1", "h", "1000"},
	{"EVAL", "return 1", "x"},
	{"EVAL", "return 1", "-1"},
	{"EVAL", "return 1", "3", "a"},
	{"EVAL", "return 1"},
	{"MULTI"},
	{"EVAL", "return redis.call('INCR', KEYS[1])", "1", "n"},
	{"EXEC"},
	{"SCRIPT", "FLUSH"},
	{"EVALSHA", sha1hex("return {KEYS[1], ARGV[1], #KEYS, #ARGV}"), "1", "k", "a", "b"},
	{"EVAL", "return redis.call('SET', KEYS[1], 'v') and 1", "1", "last"},
}

// An embedded server answers every script as miniredis does, reply for
// reply and key for key, though the world's interpreter, not miniredis,
// ran the scripts it could.
func TestScriptsAnswerAsMiniredis(t *testing.T) {
	b := NewEmbedded(epoch, false)
	conn, err := b.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ref := miniredis.NewMiniRedis()
	ref.SetTime(epoch)
	refConn, err := ref.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer refConn.Close()
	fast, slow := respConn{conn, bufio.NewReader(conn)}, respConn{refConn, bufio.NewReader(refConn)}
	for _, call := range scriptCalls {
		got, want := fast.do(t, call...), slow.do(t, call...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %#v\nwant %#v", call, got, want)
		}
	}
	if got, want := b.m.Dump(), ref.Dump(); got != want {
		t.Errorf("the keys differ:\n got %s\nwant %s", got, want)
	}
	if b.evals < 15 {
		t.Errorf("the world's interpreter ran %d scripts, want most of them", b.evals)
	}
}

// The build has the miniredis whose unexported functions script.go calls:
// after an upgrade, this fails until someone has read their signatures
// again and moved miniredisVersion.
func TestFastScriptsKnowThisMiniredis(t *testing.T) {
	if !fastScripts() {
		t.Errorf("miniredis is not %s: scripts run in miniredis's own interpreters", miniredisVersion)
	}
	if !mrFields().ok {
		t.Error("miniredis's scripts and passwords fields are not where script.go reads them")
	}
}

// A world's interpreter lasts the world, as Redis's lasts the server: what
// a script leaves in it (rawset past the globals' guard) the next script
// sees. The next world, a restart and SCRIPT FLUSH start from a new one, so
// no replay sees what another left.
func TestInterpreterEndsWithTheWorld(t *testing.T) {
	ctx := context.Background()
	const leave, read = "rawset(_G, 'left', 'behind') return 1", "return tostring(rawget(_G, 'left'))"
	world := func(b *Embedded) respConn {
		conn, err := b.Dial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return respConn{conn, bufio.NewReader(conn)}
	}
	b := NewEmbedded(epoch, false)
	c := world(b)
	ends := map[string]func(){
		"SCRIPT FLUSH": func() { c.do(t, "SCRIPT", "FLUSH") },
		"a restart":    func() { b.Stop(); _ = b.Start() },
		"a new world": func() {
			b.Close()
			b = NewEmbedded(epoch, false)
			c = world(b)
		},
	}
	for _, end := range []string{"SCRIPT FLUSH", "a restart", "a new world"} {
		c.do(t, "EVAL", leave, "0")
		if got := fmt.Sprint(c.do(t, "EVAL", read, "0")); got != "behind" {
			t.Errorf("before %s: the next script read %q, want what the last left", end, got)
		}
		ends[end]()
		if got := fmt.Sprint(c.do(t, "EVAL", read, "0")); got != "nil" {
			t.Errorf("after %s: a script read %q, want nil", end, got)
		}
	}
}

// A clean interpreter serves the next world, and one a script changed in a
// way the next could see does not: each script below leaves something
// behind that the reading script after it would find.
func TestOnlyACleanInterpreterServesTheNextWorld(t *testing.T) {
	ctx := context.Background()
	run := func(b *Embedded, script string) string {
		conn, err := b.Dial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return fmt.Sprint(respConn{conn, bufio.NewReader(conn)}.do(t, "EVAL", script, "0"))
	}
	// world runs script in a world of its own and says which interpreter
	// ran it.
	world := func(script string) (*interp, string) {
		b := NewEmbedded(epoch, false)
		defer b.Close()
		got := run(b, script)
		return b.lua, got
	}
	// A script reaches the debug library, which the globals' guard hides,
	// as package.loaded.debug.
	const pristine = "local dbg = package.loaded.debug return table.concat({tostring(rawget(_G, 'left')), " +
		"type(string.rep), tostring(getmetatable('').__index == string), tostring(dbg.getmetatable(1)), " +
		"tostring(package.loaded.left), tostring(select(2, dbg.getupvalue(getmetatable(_G).__newindex, 1)) == dbg), " +
		"tostring(getfenv(0) == _G), tostring(getfenv(getmetatable(_G).__index) == _G)}, ' ')"
	_, want := world(pristine)
	if want != "nil function true nil nil true true true" {
		t.Fatalf("a new interpreter reads %q", want)
	}
	clean, _ := world("return redis.call('SET', 'k', 'v')")
	if again, _ := world("return 1"); again != clean {
		t.Error("a clean interpreter did not serve the next world")
	}
	leaves := []string{
		"rawset(_G, 'left', 'behind') return 1",
		"string.rep = nil return 1",
		"getmetatable('').__index = {} return 1",
		"package.loaded.debug.setmetatable(1, {}) return 1",
		"package.loaded.left = true return 1",
		"package.loaded.debug.setupvalue(getmetatable(_G).__newindex, 1, {}) return 1",
		"setfenv(0, setmetatable({}, {__index = _G})) return 1",
		"setfenv(getmetatable(_G).__index, {}) return 1",
	}
	for _, leave := range leaves {
		used, _ := world(leave)
		next, got := world(pristine)
		if next == used || got != want {
			t.Errorf("after %q the next world read %q (same interpreter: %v), want %q", leave, got, next == used, want)
		}
	}
}
