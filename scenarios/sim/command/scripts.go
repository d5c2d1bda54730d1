package command

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/redis/go-redis/v9"
)

// This file is what the engine knows of scripts: which commands run one,
// each server's script cache (NOSCRIPT for an EVALSHA it was not given),
// and an embedded server's script errors in Redis's words.

// RunsScript says whether cmd runs a script or a function (in a
// transaction too).
func RunsScript(cmd redis.Cmder) bool {
	if b, ok := BatchOf(cmd); ok {
		for _, c := range b.Commands() {
			if RunsScript(Plain(c)) {
				return true
			}
		}
		return false
	}
	switch strings.ToLower(cmd.Name()) {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// ScriptCache is a server's script cache, as the run knows it: the SHA1s of the scripts
// the run's own commands gave that server since it started (EVAL, EVAL_RO,
// SCRIPT LOAD). Redis keeps the cache in memory only, so a restart
// forgets it, and a replica promoted by a failover never had it (scripts
// replicate as their effects). The gate answers an EVALSHA of a script
// the server has not been given, as Redis does, with NOSCRIPT, and does not
// send it: on an embedded server and on a real one alike, which keeps
// scripts that other runs, or this run before a restart it only played,
// left there. go-redis's Script.Run then sends the script with EVAL.
// Commands in a pipeline or transaction are sent as they are.
type ScriptCache map[string]bool

// errNoScript is Redis's answer to an EVALSHA of an unknown script, with
// the gate's note that it was not sent: lockstep monitor, beside a run on a
// real server, shows no such command.
type errNoScript struct{}

func (errNoScript) Error() string {
	return "NOSCRIPT No matching script. Please use EVAL. (lockstep: the run has not given this server the script; not sent)"
}

func (errNoScript) RedisError() {}

// UnknownScript is NOSCRIPT for a plain EVALSHA or EVALSHA_RO of a script
// the cache does not have, and nil for every other command.
func (c ScriptCache) UnknownScript(cmd redis.Cmder) error {
	args := cmd.Args()
	if InBatch(cmd) || len(args) < 2 {
		return nil
	}
	switch strings.ToLower(fmt.Sprint(args[0])) {
	case "evalsha", "evalsha_ro":
		if !c[strings.ToLower(fmt.Sprint(args[1]))] {
			return errNoScript{}
		}
	}
	return nil
}

// Learn adds the script a command gave the server, once it ran: EVAL's
// (compiled, whatever its reply, unless it did not compile) and SCRIPT
// LOAD's.
func (c *ScriptCache) Learn(cmd redis.Cmder, err error) {
	args := cmd.Args()
	if InBatch(cmd) || len(args) < 2 {
		return
	}
	var src string
	switch name := strings.ToLower(fmt.Sprint(args[0])); {
	case name == "eval", name == "eval_ro":
		src = fmt.Sprint(args[1])
	case name == "script" && len(args) > 2 && strings.EqualFold(fmt.Sprint(args[1]), "load"):
		src = fmt.Sprint(args[2])
	default:
		return
	}
	if err != nil && (strings.Contains(err.Error(), "compiling") || !isRedisError(err)) {
		return
	}
	if *c == nil {
		*c = ScriptCache{}
	}
	sum := sha1.Sum([]byte(src))
	(*c)[hex.EncodeToString(sum[:])] = true
}

// isRedisError says whether err is a server's error reply.
func isRedisError(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// embeddedScriptError matches miniredis's reply to a script whose
// redis.call failed: the error of the call, wrapped as a compile error
// with gopher-lua's traceback.
var embeddedScriptError = regexp.MustCompile(`^ERR Error compiling script \(new function\): :(\d+): ([A-Z][A-Z_-]* .*?) stack traceback:`)

// AsRedisScriptError gives an embedded server's error for a script whose
// redis.call failed in Redis's words: the call's error, the script's SHA1
// and its line ("ERR The user executing the script can't access at least
// one of the keys mentioned in the command arguments script: 3b0b…, on
// @user_script:1.", as Redis 7 answers). Any other error is err.
func AsRedisScriptError(cmd redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	m := embeddedScriptError.FindStringSubmatch(err.Error())
	args := cmd.Args()
	if m == nil || InBatch(cmd) || len(args) < 2 {
		return err
	}
	var sha string
	switch strings.ToLower(fmt.Sprint(args[0])) {
	case "eval", "eval_ro":
		sum := sha1.Sum([]byte(fmt.Sprint(args[1])))
		sha = hex.EncodeToString(sum[:])
	case "evalsha", "evalsha_ro":
		sha = strings.ToLower(fmt.Sprint(args[1]))
	default:
		return err
	}
	return scriptCallError(fmt.Sprintf("%s script: %s, on @user_script:%s.", m[2], sha, m[1]))
}

// scriptCallError is a server's error reply for a script's failed call.
type scriptCallError string

func (e scriptCallError) Error() string { return string(e) }

func (scriptCallError) RedisError() {}
