package model

import (
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/redis/go-redis/v9"
)

// LockArgs are the arguments by which a command writes or names the lock
// key: those after the key in a command on it (SET key token NX PX ttl), or
// the ARGV of a script whose KEYS include it — less option words. Numbers
// are weeded out by the caller.
func LockArgs(args []string, key string) []string {
	if len(args) < 3 {
		return nil
	}
	var vals []string
	switch strings.ToLower(args[0]) {
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 0 || 3+n > len(args) || !slices.Contains(args[3:3+n], key) {
			return nil
		}
		vals = args[3+n:]
	default:
		if args[1] != key {
			return nil
		}
		vals = args[2:]
	}
	return slices.DeleteFunc(slices.Clone(vals), func(v string) bool { return optionWords[strings.ToLower(v)] })
}

// optionWords are the options of the commands that take a lock.
var optionWords = map[string]bool{"nx": true, "xx": true, "ex": true, "px": true, "exat": true, "pxat": true,
	"keepttl": true, "get": true, "ifeq": true, "ifne": true, "ifdeq": true, "ifdne": true}

// IsNumber reports whether v reads as a number: a count, a TTL, a time.
func IsNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// NodeAnswer is what one node answered a client's SET … NX in an attempt.
type NodeAnswer int

const (
	AnswerFailed NodeAnswer = iota // an error: down, cut off, or refused
	AnswerNo                       // nil: the key was there
	AnswerOK
)

// ActorOf says whether actor is client c's business goroutine or one of the
// goroutines it started ("A.watchdog", "A/redis-3").
func ActorOf(actor, c string) bool {
	client, _, _ := trace.SplitActor(actor)
	return client == c
}

// IsSetNX says whether args are a SET of key with NX.
func IsSetNX(args []string, key string) bool {
	if len(args) < 3 || !strings.EqualFold(args[0], "set") || args[1] != key {
		return false
	}
	return slices.ContainsFunc(args[3:], func(a string) bool { return strings.EqualFold(a, "nx") })
}

// WaitCmd is a WAIT numreplicas timeout on an embedded server: it returns
// once numreplicas replicas have every write the server had made when it
// began, or when timeout has passed, with the number that had.
type WaitCmd struct {
	Server   int
	Want     int64
	Timeout  time.Duration // virtual; 0 waits for ever
	Seq      int           // the last replication entry it waits for
	Deadline time.Duration
}

// ParseWait reads a WAIT command for server srv.
func ParseWait(cmd redis.Cmder, srv int) (*WaitCmd, bool) {
	if cmd.Name() != "wait" {
		return nil, false
	}
	args := cmd.Args()
	if len(args) != 3 {
		return nil, false
	}
	want, ms := toInt(args[1]), toInt(args[2])
	if want < 0 || ms < 0 {
		return nil, false
	}
	return &WaitCmd{Server: srv, Want: int64(want), Timeout: time.Duration(ms) * time.Millisecond}, true
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return -1
}

// SentKey marks the context of a pipeline's command after its first.
type SentKey struct{}

// NestedKey marks the context of a command on its way to the server: go-redis
// runs the connection's handshake with it, nested inside the command. A
// command of another goroutine of the same client never carries it.
type NestedKey struct{}

func IsConnErr(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, io.EOF) || errors.As(err, &ne)
}
