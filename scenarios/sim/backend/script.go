package backend

import (
	"crypto/sha1"
	"encoding/hex"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/alicebob/miniredis/v2"
	luajson "github.com/alicebob/miniredis/v2/gopher-json"
	mrserver "github.com/alicebob/miniredis/v2/server"
	lua "github.com/yuin/gopher-lua"
)

// This file runs EVAL and EVALSHA on an embedded server in one Lua
// interpreter a world keeps, as Redis keeps one for all its scripts.
// miniredis builds a new interpreter, with its libraries, for every script:
// that was 41% of lockstep check's CPU. The script itself still runs in
// miniredis's own glue (redis.call and redis.pcall on a nested connection,
// the replies' conversion both ways, the globals' protection), reached by
// go:linkname; only the interpreter's lifetime is lockstep's. A world's
// interpreter ends with the world, a restart, or SCRIPT FLUSH (as Redis
// resets its own), and goes to another world only if it is as it was made
// (luaPool.give), so every replay of a schedule starts from one as new.
//
// The linknamed functions are miniredis v2.40.0's: their signatures are
// checked by nothing but the version, so the fast path runs only when the
// build has exactly that version of miniredis (fastScripts), and a test
// fails when it does not, to have the signatures read again.

//go:linkname mrMkLua github.com/alicebob/miniredis/v2.mkLua
func mrMkLua(srv *mrserver.Server, c *mrserver.Peer, sha string, readOnly bool) (map[string]lua.LGFunction, map[string]lua.LValue)

//go:linkname mrLuaToRedis github.com/alicebob/miniredis/v2.luaToRedis
func mrLuaToRedis(l *lua.LState, c *mrserver.Peer, value lua.LValue)

//go:linkname mrDoScript github.com/alicebob/miniredis/v2.doScript
func mrDoScript(l *lua.LState, script string) error

//go:linkname mrMkLuaOS github.com/alicebob/miniredis/v2.mkLuaOS
func mrMkLuaOS() map[string]lua.LGFunction

//go:linkname mrRequireGlobal github.com/alicebob/miniredis/v2.requireGlobal
func mrRequireGlobal(l *lua.LState, id, modName string)

//go:linkname mrProtectGlobals github.com/alicebob/miniredis/v2.protectGlobals
var mrProtectGlobals string

// miniredisVersion is the version whose unexported functions this file
// calls.
const miniredisVersion = "v2.40.0"

// fastScripts says whether the build has miniredisVersion, by the path of
// miniredis's source the build recorded (the module cache's, or -trimpath's
// module path, both with the version; a test binary records no module
// versions in its build information, and a library user's tests are test
// binaries too). Any other build, a vendored or replaced miniredis among
// them, runs every script in miniredis itself, as without this file.
var fastScripts = sync.OnceValue(func() bool {
	pc := reflect.ValueOf(miniredis.NewMiniRedis).Pointer()
	f := runtime.FuncForPC(pc)
	if f == nil {
		return false
	}
	file, _ := f.FileLine(pc)
	return strings.Contains(file, "github.com/alicebob/miniredis/v2@"+miniredisVersion+"/")
})

// The unexported fields of a server the fast path reads: its scripts and
// its passwords. A connection's context (connCtx) is read by name
// (plainPeer, inScript).
var mrFields = sync.OnceValue(func() (f struct {
	scripts, passwords int
	ok                 bool
}) {
	t := reflect.TypeFor[miniredis.Miniredis]()
	s, ok1 := t.FieldByName("scripts")
	p, ok2 := t.FieldByName("passwords")
	f.ok = ok1 && ok2 && s.Type == reflect.TypeFor[map[string]string]() && p.Type.Kind() == reflect.Map
	f.scripts, f.passwords = s.Index[0], p.Index[0]
	return f
})

// scriptsOf is m's script cache, SHA1 to body (miniredis's m.scripts).
func scriptsOf(m *miniredis.Miniredis) *map[string]string {
	f := reflect.ValueOf(m).Elem().Field(mrFields().scripts)
	return (*map[string]string)(unsafe.Pointer(f.UnsafeAddr()))
}

// plainPeer says whether the fast path may answer p's script: p is not in
// a script, a transaction (which queues it) or a subscription (which
// refuses it), and the server asks no password. Miniredis answers the
// others, and every malformed call, itself.
func plainPeer(m *miniredis.Miniredis, p *mrserver.Peer) bool {
	if reflect.ValueOf(m).Elem().Field(mrFields().passwords).Len() > 0 {
		return false
	}
	v := reflect.ValueOf(p.Ctx)
	if p.Ctx == nil {
		return true
	}
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	c := v.Elem()
	tx, sub := c.FieldByName("transaction"), c.FieldByName("subscriber")
	if !tx.IsValid() || !sub.IsValid() {
		return false
	}
	return !inScript(p) && tx.IsNil() && sub.IsNil()
}

// eval answers an EVAL or EVALSHA (cmd, upper case) of a plain peer with
// the world's interpreter, and says whether it did; a call it leaves
// (false) goes on to miniredis's own command.
func (b *Embedded) eval(p *mrserver.Peer, cmd string, args []string) bool {
	if !fastScripts() || !mrFields().ok || len(args) < 2 || !plainPeer(b.m, p) {
		return false
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > len(args)-2 {
		return false
	}
	m := b.m
	m.Lock()
	defer m.Unlock()
	scripts := scriptsOf(m)
	script, sha := args[0], args[0]
	if cmd == "EVAL" {
		sum := sha1.Sum([]byte(script))
		sha = hex.EncodeToString(sum[:])
	} else if script = (*scripts)[sha]; script == "" {
		return false // NOSCRIPT, in miniredis's words
	}
	b.evals++
	if runScript(m.Server(), b.interpreter(), p, sha, script, args[2:2+n], args[2+n:]) && cmd == "EVAL" {
		(*scripts)[sha] = script
	}
	return true
}

// runScript runs script on l, as miniredis's runLuaScript does on a new
// interpreter, and writes its reply to c; false: it failed.
func runScript(srv *mrserver.Server, l *lua.LState, c *mrserver.Peer, sha, script string, keys, argv []string) bool {
	l.SetTop(0)
	l.SetGlobal("KEYS", stringTable(l, keys))
	l.SetGlobal("ARGV", stringTable(l, argv))
	funcs, consts := mrMkLua(srv, c, sha, false)
	mod := l.CreateTable(0, len(funcs)+len(consts))
	for name, fn := range funcs {
		mod.RawSetString(name, l.NewFunction(fn))
	}
	for name, v := range consts {
		mod.RawSetString(name, v)
	}
	l.SetGlobal("redis", mod)
	l.SetGlobal("server", mod)
	// A script may call redis.setresp: its protocol lasts the script.
	oldresp := c.Resp3
	if err := mrDoScript(l, script); err != nil {
		c.WriteError(err.Error())
		return false
	}
	mrLuaToRedis(l, c, l.Get(1))
	c.Resp3 = oldresp
	c.SwitchResp3 = nil
	l.SetTop(0)
	return true
}

func stringTable(l *lua.LState, s []string) *lua.LTable {
	t := l.CreateTable(len(s), 0)
	for i, v := range s {
		l.RawSet(t, lua.LNumber(i+1), lua.LString(v))
	}
	return t
}

// An interp is a Lua interpreter and its fingerprint when it was new.
type interp struct {
	l    *lua.LState
	mark []lua.LValue
	seen map[lua.LValue]bool // the check's (unchanged), kept for the next
}

// interpreter is the world's Lua interpreter: a clean one an earlier world
// left (interpreters), or a new one.
func (b *Embedded) interpreter() *lua.LState {
	if b.lua == nil {
		b.lua = interpreters.take()
	}
	if b.lua == nil {
		l := newInterpreter()
		b.lua = &interp{l: l, mark: fingerprint(l, nil)}
	}
	return b.lua.l
}

// newInterpreter is an interpreter with what miniredis gives each of its
// own: the libraries, cjson, os.clock, and globals a script may not create.
func newInterpreter() *lua.LState {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.DebugLibName, lua.OpenDebug},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), Protect: true}, lua.LString(lib.name)); err != nil {
			panic(err)
		}
	}
	luajson.Preload(l)
	mrRequireGlobal(l, "cjson", "json")
	// The globals each script sets exist before the protection, which
	// guards only the creation of new ones.
	for _, g := range scriptGlobals {
		l.SetGlobal(g, l.NewTable())
	}
	l.RegisterModule("os", mrMkLuaOS())
	_ = mrDoScript(l, mrProtectGlobals)
	l.SetTop(0)
	return l
}

// scriptGlobals are the globals every script gets anew.
var scriptGlobals = []string{"KEYS", "ARGV", "redis", "server"}

// dropInterpreter ends the world's interpreter: the next script gets
// another, as after Redis's SCRIPT FLUSH or a restart. Under the server's
// lock, which a running script holds.
func (b *Embedded) dropInterpreter() {
	b.m.Lock()
	defer b.m.Unlock()
	if b.lua != nil {
		interpreters.give(b.lua)
		b.lua = nil
	}
}

// interpreters keeps the interpreters of ended worlds that their scripts
// left as they were made, for the next worlds: building one (its libraries'
// hundred-odd functions) was a tenth of a search's CPU.
var interpreters luaPool

// interpretersMax is how many interpreters are kept at most.
const interpretersMax = 32

type luaPool struct {
	sync.Mutex
	free []*interp
	off  bool // keep none (a test's comparison)
}

func (p *luaPool) take() *interp {
	p.Lock()
	defer p.Unlock()
	n := len(p.free)
	if n == 0 {
		return nil
	}
	in := p.free[n-1]
	p.free = p.free[:n-1]
	return in
}

// give keeps in for another world if it is clean, and closes it otherwise.
// Clean: everything a script can reach and keep is as it was made
// (fingerprint).
func (p *luaPool) give(in *interp) {
	p.Lock()
	defer p.Unlock()
	if p.off || len(p.free) >= interpretersMax || in.l.Dead || in.l.GetTop() != 0 || !in.unchanged() {
		in.l.Close()
		return
	}
	p.free = append(p.free, in)
}

// fingerprint appends to fp everything of l a script can reach and change:
// the tables and functions reachable from the globals, the registry and
// the metatables of the types (debug.setmetatable), each table's metatable,
// keys and values in its own order, each function's environment (setfenv)
// and upvalues (debug.setupvalue). The globals every script gets anew are
// left out. Values compare as Lua's rawequal does; a table or function
// by identity, so a fingerprint compares only with its own interpreter's.
func fingerprint(l *lua.LState, fp []lua.LValue) []lua.LValue {
	walkState(l, map[lua.LValue]bool{}, func(v lua.LValue) bool {
		fp = append(fp, v)
		return true
	})
	return fp
}

// unchanged says whether l's fingerprint is still in.mark: the same walk,
// compared as it goes, and stopped at the first difference, with nothing
// kept but the tables and functions it has seen (in.seen, cleared for it).
func (in *interp) unchanged() bool {
	if in.seen == nil {
		in.seen = make(map[lua.LValue]bool, len(in.mark)/2)
	}
	clear(in.seen)
	i := 0
	walkState(in.l, in.seen, func(v lua.LValue) bool {
		if i >= len(in.mark) || in.mark[i] != v {
			i = -1
			return false
		}
		i++
		return true
	})
	return i == len(in.mark)
}

// walkState calls visit with everything of l a script can reach and
// change, in fingerprint's order, until visit returns false; seen holds
// the tables, functions and userdata it has walked.
func walkState(l *lua.LState, seen map[lua.LValue]bool, visit func(lua.LValue) bool) {
	stopped := false
	var walk func(v lua.LValue)
	walk = func(v lua.LValue) {
		if stopped {
			return
		}
		if !visit(v) {
			stopped = true
			return
		}
		switch x := v.(type) {
		case *lua.LTable:
			if x == nil || seen[x] {
				return
			}
			seen[x] = true
			walk(x.Metatable)
			for k, e := x.Next(lua.LNil); k != lua.LNil && !stopped; k, e = x.Next(k) {
				if x == l.G.Global && k.Type() == lua.LTString && slices.Contains(scriptGlobals, k.String()) {
					continue
				}
				walk(k)
				walk(e)
			}
			walk(lua.LNil) // the table's end
		case *lua.LFunction:
			if x == nil || seen[x] {
				return
			}
			seen[x] = true
			walk(x.Env)
			for _, u := range x.Upvalues {
				walk(u.Value())
			}
			walk(lua.LNil)
		case *lua.LUserData:
			if x == nil || seen[x] {
				return
			}
			seen[x] = true
			walk(x.Metatable)
			walk(x.Env)
		}
	}
	walk(l.Env)
	walk(l.G.Global)
	walk(l.G.Registry)
	for _, v := range []lua.LValue{lua.LNil, lua.LTrue, lua.LNumber(0), lua.LString(""), l.NewFunction(nil), l, lua.LChannel(nil)} {
		walk(l.GetMetatable(v))
	}
}
