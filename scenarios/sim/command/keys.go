package command

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// This file is the guard: what a lock may do on a server. A lock may send
// the commands locks use (LockCommands) and name only its own keys (the
// lock's key K, keys under "K:", keys that start with the hash tag "{K}").
// The server enforces it, inside scripts too: a real one through an ACL
// user made for the run (package realserver builds it from LockCommands and
// KeyPatterns), an embedded one through a hook that answers as Redis's ACL
// does (RefusalOf). Either way the refused command is in the trace with
// the server's NOPERM reply, and the run fails as the lock's own.

// keySpec says where a command's keys are, as Redis's key specs do for the
// commands locks use.
type keySpec int

const (
	keysNone    keySpec = iota // no key
	keysFirst                  // the first argument
	keysTwo                    // the first two arguments (RENAME source and destination)
	keysAll                    // every argument
	keysPairs                  // every other argument, from the first (MSET)
	keysNumkeys                // a count, then that many keys (EVAL)
)

// lockCommands are the commands a lock may send, by where their keys are:
// strings, hashes, lists, sets and sorted sets on its own keys, expiry,
// scripts (EVAL, EVALSHA, FCALL, SCRIPT LOAD and EXISTS), transactions, and
// what a connection needs (HELLO, AUTH, PING, WAIT for replicas; AUTH and
// HELLO … AUTH only in the connection's handshake: from lock code the gate
// refuses them, see SessionRefusal). Not among
// them: anything that reaches beyond one's keys (FLUSHALL, FLUSHDB, KEYS,
// SCAN, MOVE, COPY, SWAPDB, SELECT, CONFIG, FUNCTION, SCRIPT FLUSH, CLIENT,
// DEBUG, SHUTDOWN, MONITOR, PSUBSCRIBE …). PUBLISH, SUBSCRIBE and
// UNSUBSCRIBE are among them: a lock may tell its waiters it released, and
// wait to hear it; on a real server the run's ACL user has no channel, so
// Redis refuses them there.
var lockCommands = map[string]keySpec{
	// connection, server, transactions
	"hello": keysNone, "auth": keysNone, "ping": keysNone, "echo": keysNone,
	"time": keysNone, "wait": keysNone,
	// a lock that says it released (simple-redis-mutex's script), and one
	// that waits to hear it (package external subscribes for a lock in
	// another language)
	"publish": keysNone, "subscribe": keysNone, "unsubscribe": keysNone,
	"multi": keysNone, "exec": keysNone, "discard": keysNone, "unwatch": keysNone,
	"watch": keysAll,
	// scripts
	"eval": keysNumkeys, "evalsha": keysNumkeys, "eval_ro": keysNumkeys, "evalsha_ro": keysNumkeys,
	"fcall": keysNumkeys, "fcall_ro": keysNumkeys,
	"script|load": keysNone, "script|exists": keysNone,
	// keys
	"del": keysAll, "unlink": keysAll, "exists": keysAll, "touch": keysAll,
	"rename": keysTwo, "renamenx": keysTwo, "type": keysFirst,
	"expire": keysFirst, "pexpire": keysFirst, "expireat": keysFirst, "pexpireat": keysFirst,
	"ttl": keysFirst, "pttl": keysFirst, "expiretime": keysFirst, "pexpiretime": keysFirst,
	"persist": keysFirst,
	// strings
	"get": keysFirst, "set": keysFirst, "setnx": keysFirst, "setex": keysFirst, "psetex": keysFirst,
	"getset": keysFirst, "getdel": keysFirst, "getex": keysFirst, "append": keysFirst, "strlen": keysFirst,
	"getrange": keysFirst, "setrange": keysFirst,
	"incr": keysFirst, "incrby": keysFirst, "incrbyfloat": keysFirst, "decr": keysFirst, "decrby": keysFirst,
	"mget": keysAll, "mset": keysPairs, "msetnx": keysPairs,
	// hashes
	"hset": keysFirst, "hsetnx": keysFirst, "hmset": keysFirst, "hget": keysFirst, "hmget": keysFirst,
	"hgetall": keysFirst, "hdel": keysFirst, "hexists": keysFirst, "hincrby": keysFirst,
	"hincrbyfloat": keysFirst, "hlen": keysFirst, "hkeys": keysFirst, "hvals": keysFirst,
	// lists, sets, sorted sets (fair and counting locks keep queues)
	"lpush": keysFirst, "rpush": keysFirst, "lpop": keysFirst, "rpop": keysFirst, "llen": keysFirst,
	"lrange": keysFirst, "lrem": keysFirst, "lindex": keysFirst,
	"sadd": keysFirst, "srem": keysFirst, "sismember": keysFirst, "smembers": keysFirst, "scard": keysFirst,
	"zadd": keysFirst, "zrem": keysFirst, "zscore": keysFirst, "zrange": keysFirst, "zcard": keysFirst,
	"zrangebyscore": keysFirst, "zremrangebyscore": keysFirst, "zincrby": keysFirst, "zrank": keysFirst,
}

// LockCommands are the commands a lock may send, sorted, in the form of
// Redis's ACL rules: "get", "script|load".
func LockCommands() []string {
	names := make([]string, 0, len(lockCommands))
	for n := range lockCommands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Keyless says whether cmd, lower case ("wait", or "script|load" for a
// subcommand), is a command a lock may send that names no key: lockstep
// monitor gives such a command the run of its connection's earlier ones.
func Keyless(cmd string) bool {
	spec, ok := lockCommands[cmd]
	return ok && spec == keysNone
}

// KeyPatterns are the ACL key patterns of a lock's keys (ACL SETUSER
// ~pattern): key itself, keys under "key:", keys that start with "{key}".
// Glob characters in key are escaped.
func KeyPatterns(key string) []string {
	k := globEscape(key)
	return []string{k, k + ":*", globEscape("{"+key+"}") + "*"}
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// OwnKey says whether key k belongs to the lock whose key is own.
func OwnKey(k, own string) bool {
	return k == own || strings.HasPrefix(k, own+":") || strings.HasPrefix(k, "{"+own+"}")
}

// guardName is the name a command has in lockCommands: its own, or with its
// subcommand for SCRIPT ("script|load").
func guardName(args []string) string {
	name := strings.ToLower(args[0])
	if name == "script" && len(args) > 1 {
		name += "|" + strings.ToLower(args[1])
	}
	return name
}

// commandKeys lists the keys of a command a lock may send, by its key spec.
func commandKeys(spec keySpec, args []string) []string {
	switch spec {
	case keysFirst:
		return args[1:min(2, len(args))]
	case keysTwo:
		return args[1:min(3, len(args))]
	case keysAll:
		return args[1:]
	case keysPairs:
		var keys []string
		for i := 1; i < len(args); i += 2 {
			keys = append(keys, args[i])
		}
		return keys
	case keysNumkeys:
		if len(args) < 3 {
			return nil
		}
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 0 || 3+n > len(args) {
			return nil // the server refuses it for its count
		}
		return args[3 : 3+n]
	}
	return nil
}

// KeysOf lists the keys args name, for the commands a lock may send (none
// for the rest), by Redis's key specs.
func KeysOf(args []string) []string {
	return commandKeys(lockCommands[guardName(args)], args)
}

// NamedKeys lists the keys a command names, for the commands a lock may
// send; none for the rest (the server refuses them).
func NamedKeys(cmd redis.Cmder) []string {
	if b, ok := BatchOf(cmd); ok {
		var keys []string
		for _, c := range b.Commands() {
			keys = append(keys, NamedKeys(Plain(c))...)
		}
		return keys
	}
	args := cmd.Args()
	if len(args) == 0 {
		return nil
	}
	strs := make([]string, len(args))
	for i, a := range args {
		strs[i] = fmt.Sprint(a)
	}
	return KeysOf(strs)
}

// The words of Redis 7's refusals, as an ACL user meets them: a command
// outside its rules, a key outside its patterns; inside a script, the
// script's error says the same.
const (
	noPermCommand       = "NOPERM this user has no permissions to run the '%s' command"
	noPermKey           = "NOPERM this user has no permissions to access one of the keys used as arguments"
	scriptNoPermCommand = "ERR The user executing the script can't run this command or subcommand"
	scriptNoPermKey     = "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments"
)

// refusal is what a guarded server answers to args from a client of the
// lock whose key is own — inScript: from a script that client runs — or ""
// when it lets the command run.
func refusal(args []string, own string, shared []string, inScript bool) string {
	if len(args) == 0 {
		return ""
	}
	name := guardName(args)
	spec, ok := lockCommands[name]
	if !ok {
		if inScript {
			return scriptNoPermCommand
		}
		return fmt.Sprintf(noPermCommand, name)
	}
	for _, k := range commandKeys(spec, args) {
		if !OwnKey(k, own) && !slices.ContainsFunc(shared, func(s string) bool { return OwnKey(k, s) }) {
			if inScript {
				return scriptNoPermKey
			}
			return noPermKey
		}
	}
	return ""
}

// RefusalOf is refusal for a client of any of the locks whose keys are
// owns: a command passes when the keys it names are one lock's, or keys
// every lock of the library shares (shared: lockimpl.Info.SharedKeys).
func RefusalOf(args []string, owns, shared []string, inScript bool) string {
	r := ""
	for _, own := range owns {
		if r = refusal(args, own, shared, inScript); r == "" {
			return ""
		}
	}
	return r
}

// IsRefusal says whether err is a guarded server's refusal of a command:
// Redis's NOPERM, or a script's error for a command or key the run's user
// may not use.
func IsRefusal(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return redis.IsPermissionError(err) || strings.Contains(s, "The user executing the script can't")
}

// ClientRefusal is the gate's own check, for a real server the user runs
// without an ACL user (Target.NoACL): the command is not sent. It cannot
// see into a script's body; Redis can.
func ClientRefusal(cmd redis.Cmder, own string) error {
	if b, ok := BatchOf(cmd); ok {
		for _, c := range b.Commands() {
			if err := ClientRefusal(Plain(c), own); err != nil {
				return err
			}
		}
		return nil
	}
	args := make([]string, len(cmd.Args()))
	for i, a := range cmd.Args() {
		args[i] = fmt.Sprint(a)
	}
	if r := refusal(args, own, nil, false); r != "" {
		return RefusedHere(r + " (lockstep's own check: not sent)")
	}
	return nil
}

// SessionRefusal is the gate's check of every command lock code sends, on
// every server: a command that would make the connection someone else's
// is refused and not sent. Redis lets every user run AUTH, HELLO … AUTH
// and RESET whatever its ACL rules say (seen on Redis 7.0: a user of
// "-@all -auth -hello" still runs them), and on a server whose default
// user has no password (its stock set-up) "AUTH default x" answers OK: the
// connection is then default's, and the next FLUSHALL runs. So the run's
// ACL user cannot refuse them; the gate does, inside transactions and
// pipelines too, and the server's own refusal of CLIENT and the rest stays
// (they are not among lockCommands). The connection's handshake, which
// authenticates as the run's user, runs nested and never comes here.
func SessionRefusal(cmd redis.Cmder) error {
	if b, ok := BatchOf(cmd); ok {
		for _, c := range b.Commands() {
			if err := SessionRefusal(Plain(c)); err != nil {
				return err
			}
		}
		return nil
	}
	args := cmd.Args()
	if len(args) == 0 {
		return nil
	}
	name := strings.ToLower(fmt.Sprint(args[0]))
	switch {
	case name == "auth", name == "reset", name == "hello" && len(args) > 2:
		// HELLO with no more than its protocol version changes nothing
		// of who the connection is; with AUTH or SETNAME it does.
		return RefusedHere(fmt.Sprintf(noPermSession, name))
	}
	return nil
}

// noPermSession is the gate's refusal of a command that would change whose
// connection it is, in the shape of Redis's NOPERM.
const noPermSession = "NOPERM lockstep refuses '%s' from lock code: a lock's connections stay the run's own user (not sent)"

// RefusedHere is a refusal the gate makes itself, shaped as a server's
// error reply (redis.Error).
type RefusedHere string

// Error is the refusal's words.
func (e RefusedHere) Error() string { return string(e) }

// RedisError marks it as a server's error reply.
func (RefusedHere) RedisError() {}
