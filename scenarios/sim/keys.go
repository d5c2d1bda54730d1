package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ForeignKeyError is what a command gets when it names a key that is not
// the lock's own: it is never sent, and the run fails with it. A lock's keys
// are Env.Key, keys under "Env.Key:" and keys that start with the hash tag
// "{Env.Key}" (a fencing counter, say); on a real server those are all under
// the run's prefix, so a lock cannot touch anything else there.
type ForeignKeyError struct {
	Actor, Command, Key, Own string
}

func (e *ForeignKeyError) Error() string {
	return fmt.Sprintf("%s's %s names the key %q, which is not the lock's own (its keys are %s, %s:… and {%s}…); it was not sent",
		e.Actor, e.Command, e.Key, e.Own, e.Own, e.Own)
}

// ownKey says whether key k belongs to the lock whose key is own.
func ownKey(k, own string) bool {
	return k == own || strings.HasPrefix(k, own+":") || strings.HasPrefix(k, "{"+own+"}")
}

// commandKeys lists the keys a command names, by the positions Redis gives
// them for the commands locks send; a command it does not know is taken to
// name its first argument.
func commandKeys(cmd redis.Cmder) []string {
	args := cmd.Args()
	str := func(v any) string { return fmt.Sprint(v) }
	switch strings.ToLower(cmd.Name()) {
	case "ping", "wait", "waitaof", "script", "time", "info", "hello", "auth", "select",
		"client", "command", "echo", "dbsize", "role", "readonly", "readwrite", "quit", "reset":
		return nil
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		if len(args) < 3 {
			return nil
		}
		n, err := strconv.Atoi(str(args[2]))
		if err != nil || n < 0 || 3+n > len(args) {
			return nil
		}
		keys := make([]string, n)
		for i := range n {
			keys[i] = str(args[3+i])
		}
		return keys
	case "del", "unlink", "exists", "touch", "mget", "watch":
		keys := make([]string, 0, len(args)-1)
		for _, a := range args[1:] {
			keys = append(keys, str(a))
		}
		return keys
	case "mset", "msetnx":
		var keys []string
		for i := 1; i < len(args); i += 2 {
			keys = append(keys, str(args[i]))
		}
		return keys
	}
	if len(args) < 2 {
		return nil
	}
	return []string{str(args[1])}
}

// foreignKey returns the first key cmd names that is not the lock's own.
func foreignKey(cmd redis.Cmder, own string) (string, bool) {
	for _, k := range commandKeys(cmd) {
		if !ownKey(k, own) {
			return k, true
		}
	}
	return "", false
}
