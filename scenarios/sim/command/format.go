package command

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/redis/go-redis/v9"
)

// This file formats commands and replies as redis-cli shows them: a
// command's arguments as a trace keeps them, a script by its name, a reply
// as redis-cli prints it.

// Args are a command's arguments as a trace keeps them (KeptArgs).
func Args(cmd redis.Cmder) []string {
	if b, ok := BatchOf(cmd); ok {
		return KeptArgs(b.Args())
	}
	return KeptArgs(cmd.Args())
}

// Format renders a command as redis-cli would take it. A Lua script
// body shows as the name on its first comment line (EVAL <release> 1 key
// A#1), or, for a script without one (a library's), as "script" and the
// first 8 hex digits of its SHA-1 — the name its EVALSHA shows too (of
// the whole body, which the arguments a trace keeps may have cut).
func Format(cmd redis.Cmder) string {
	if b, ok := BatchOf(cmd); ok {
		return b.Format()
	}
	args := Args(cmd)
	parts := make([]string, len(args))
	script := len(args) > 1 && (strings.EqualFold(args[0], "eval") || strings.EqualFold(args[0], "evalsha") ||
		strings.EqualFold(args[0], "eval_ro") || strings.EqualFold(args[0], "evalsha_ro"))
	for i, a := range args {
		switch {
		case i == 0 || keywords[a]:
			parts[i] = strings.ToUpper(a)
		case i == 1 && script:
			parts[i] = "<" + scriptName(args[0], rawArg(cmd.Args()[1])) + ">"
		case a == "" || strings.ContainsAny(a, " \"\n"):
			parts[i] = strconv.Quote(a)
		default:
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

// scriptName names the script argument of an EVAL (its body) or an EVALSHA
// (its SHA-1): the first comment line up to a colon, else "script" and a
// short hash.
func scriptName(cmd, arg string) string {
	if strings.HasPrefix(strings.ToLower(cmd), "evalsha") {
		return "script " + arg[:min(8, len(arg))]
	}
	first, _, _ := strings.Cut(strings.TrimLeft(arg, " \t\r\n"), "\n")
	if c, ok := strings.CutPrefix(first, "--"); ok && strings.TrimSpace(c) != "" {
		name, _, _ := strings.Cut(strings.TrimSpace(c), ":")
		return text.Clean(name)
	}
	return fmt.Sprintf("script %x", sha1.Sum([]byte(arg)))[:len("script ")+8]
}

// keywords are the command options go-redis sends in lower case.
var keywords = map[string]bool{"nx": true, "xx": true, "ex": true, "px": true, "keepttl": true}

// FormatReply renders a reply as redis-cli prints it.
func FormatReply(cmd redis.Cmder, err error) string {
	if b, ok := BatchOf(cmd); ok {
		return b.Reply(err)
	}
	return Reply(cmd, err)
}

// Reply is FormatReply for one command, never a batch's: at most MaxArg
// bytes of any value in it (Cut).
func Reply(cmd redis.Cmder, err error) string {
	if errors.Is(err, redis.Nil) {
		return "(nil)"
	}
	if err != nil {
		return Cut("(error) "+err.Error(), MaxArg)
	}
	name := strings.ToLower(cmd.Name())
	switch c := cmd.(type) {
	case *redis.StatusCmd:
		return Cut(c.Val(), MaxArg)
	case *redis.IntCmd:
		return "(integer) " + strconv.FormatInt(c.Val(), 10)
	case *redis.StringCmd:
		return strconv.Quote(Cut(c.Val(), MaxArg))
	case *redis.BoolCmd:
		if name == "set" {
			if c.Val() {
				return "OK"
			}
			return "(nil)"
		}
		return "(integer) " + boolInt(c.Val())
	case *redis.Cmd:
		switch v := c.Val().(type) {
		case nil:
			return "(nil)"
		case int64:
			return "(integer) " + strconv.FormatInt(v, 10)
		case string:
			if v == "OK" {
				return v
			}
			return strconv.Quote(Cut(v, MaxArg))
		default:
			return Cut(fmt.Sprint(v), MaxArg)
		}
	}
	return Cut(fmt.Sprint(cmd), MaxArg)
}

// StringReply is a command's reply when it is a bulk string.
func StringReply(cmd redis.Cmder) (string, bool) {
	switch c := cmd.(type) {
	case *redis.StringCmd:
		return c.Val(), c.Err() == nil
	case *redis.Cmd:
		v, ok := c.Val().(string)
		return v, ok && c.Err() == nil
	}
	return "", false
}

func boolInt(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// FormatArgs renders a command's arguments as the trace shows a
// command: as redis-cli would take it, a script by its name.
func FormatArgs(args []string) string {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return Format(redis.NewCmd(context.Background(), out...))
}

// IsReply says whether err is a normal reply (nil) rather than a failure.
func IsReply(err error) bool { return err == nil || errors.Is(err, redis.Nil) }
