package command

import (
	"errors"
	"runtime"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// An EVALSHA that the server answers NOSCRIPT (it has never seen the
// script) is the first half of one script call: the code that sent it sends
// the script whole with EVAL next. Which code that is, the narration says:
// go-redis does it only in Script.Run and Script.RunRO (bsm/redislock calls
// them); redsync calls go-redis's EvalSha and, on NOSCRIPT, its Eval itself,
// in its go-redis adapter (redis/goredis/v9, conn.Eval); a lock of one's
// own may do either. A lock in another language (package external) falls
// back as its library does: redis-py loads the script (SCRIPT LOAD) and
// sends the EVALSHA again. The gate reads it off the stack of the goroutine
// that sent the EVALSHA (WithFallback).

// noScriptError is the NOSCRIPT reply as the gate reports it to the
// scheduler, with the code that falls back to EVAL. Lock code gets the
// reply itself.
type noScriptError struct {
	error
	by text.Text // empty: code the engine does not know
	// library: the EVALSHA came from a lock in another language, whose
	// library falls back its own way (by says which).
	library bool
}

func (e *noScriptError) Unwrap() error { return e.error }

// RedisError: it is a server's reply, as the error it carries.
func (e *noScriptError) RedisError() {}

// WithFallback is err, the reply to cmd, with the code that falls back to
// EVAL when it is an EVALSHA's NOSCRIPT; otherwise err.
func WithFallback(cmd redis.Cmder, err error) error {
	if name := cmd.Name(); (name != "evalsha" && name != "evalsha_ro") || !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return err
	}
	by := scriptCaller()
	return &noScriptError{error: err, by: by, library: by == fromLibrary}
}

// fromLibrary names the code of a lock in another language: its agent's
// commands come in through package external.
var fromLibrary = text.Text{EN: "the lock's own library", ZH: "锁所用的库"}

// ScriptFallbackOwn says whether err, a NOSCRIPT, came to a lock in another
// language, whose library falls back its own way: SCRIPT LOAD and EVALSHA
// again (redis-py), or EVAL.
func ScriptFallbackOwn(err error) bool {
	var ns *noScriptError
	return errors.As(err, &ns) && ns.library
}

// ScriptFallback is who sends the script whole after err, a NOSCRIPT: the
// code the gate found, or, for a reply the gate did not see, the code that
// sent the EVALSHA.
func ScriptFallback(err error) text.Text {
	var ns *noScriptError
	if errors.As(err, &ns) && ns.by.EN != "" {
		return ns.by
	}
	return text.Text{EN: "the code that sent the EVALSHA", ZH: "发出 EVALSHA 的代码"}
}

// Known callers of go-redis's EvalSha, by function.
var scriptCallers = map[string]text.Text{
	"github.com/go-redsync/redsync/v4/redis/goredis/v9.(*conn).Eval": {
		EN: "redsync's go-redis adapter (conn.Eval)", ZH: "redsync 的 go-redis 适配器（conn.Eval）"},
}

// scriptCaller names the code on the calling goroutine's stack that called
// go-redis's EvalSha: go-redis's own Script.Run, a known library's code, or
// the function itself (package-qualified). The frames above go-redis's are
// the gate's.
func scriptCaller() text.Text {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	inGoRedis := false
	for {
		f, more := frames.Next()
		fn := f.Function
		switch {
		case strings.HasPrefix(fn, "github.com/redis/go-redis/v9.(*Script).Run"):
			return text.Text{EN: "go-redis's Script.Run", ZH: "go-redis 的 Script.Run"}
		case strings.HasPrefix(fn, "github.com/redis/go-redis/"):
			inGoRedis = true
		case inGoRedis && strings.HasPrefix(fn, "github.com/lockstep-sim/lockstep/lockimpl/external."):
			return fromLibrary
		case inGoRedis && fn != "":
			if t, ok := scriptCallers[fn]; ok {
				return t
			}
			short := fn[strings.LastIndexByte(fn, '/')+1:]
			return text.Text{EN: short, ZH: short}
		}
		if !more {
			return text.Text{}
		}
	}
}
