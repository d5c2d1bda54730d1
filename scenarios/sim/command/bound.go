package command

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The bounds of what a trace keeps of the values a run meets. Redis takes
// a value of up to 512 MB, and a lock's code may write one; a trace keeps
// each value in every snapshot that follows, and each command and reply
// as it was sent. A lock that wrote 32 MB under its key made get-then-del
// a trace of 2.4 GB (12.8 GB to play it and write it as JSON, embedded),
// and took 10.1 GB on a real server. What is cut ends in a marker that
// says how much was left out: "…(+33554176 bytes)".
const (
	// MaxValue bounds a key's value in a snapshot, in bytes before the
	// marker: a lock's token, a count, a hash of them fit many times.
	MaxValue = 256
	// MaxArg bounds a recorded command's arguments, all together, and its
	// reply, in bytes before the markers: a lock's Lua script fits whole.
	MaxArg = 4096
)

// Cut is s as a trace keeps it, at most limit bytes and a marker: s itself
// when it fits, else a copy of its start and "…(+N bytes)" for the N bytes
// left out.
func Cut(s string, limit int) string {
	return CutHead(s[:min(len(s), limit+utf8.UTFMax)], len(s), limit)
}

// CutHead is Cut of a value of size bytes of which head is the start, as
// much as was read of it (a real server's GETRANGE): head when it is the
// whole value and fits, else the first limit bytes of head and the marker.
// The cut falls before a character that would be split. A size below
// head's length (the value changed between the two readings) counts as
// head's.
func CutHead(head string, size, limit int) string {
	size = max(size, len(head))
	if size <= limit && len(head) == size {
		return head
	}
	n := min(len(head), limit)
	for i := n; i > 0 && i > n-utf8.UTFMax && n < len(head); i-- {
		if utf8.RuneStart(head[i]) {
			n = i
			break
		}
	}
	// A new string: the part of head alone would keep all of it alive.
	return head[:n] + "…(+" + strconv.Itoa(size-n) + " bytes)"
}

// KeptArgs are a command's arguments as a trace keeps them (Event.Args):
// whole while they add up to MaxArg bytes; past that, each one longer than
// MaxValue is cut to it, and those that still go past MaxArg are left out,
// counted in a last "…(+N args)". So SET key VALUE NX PX 30000 keeps its
// options whatever the size of VALUE.
func KeptArgs(raw []any) []string {
	total := 0
	for _, a := range raw {
		total += argLen(a)
	}
	over := total > MaxArg
	out := make([]string, 0, len(raw))
	used := 0
	for i, a := range raw {
		s := argText(a, over)
		if over && used+len(s) > MaxArg {
			return append(out, "…(+"+strconv.Itoa(len(raw)-i)+" args)")
		}
		used += len(s)
		out = append(out, s)
	}
	return out
}

// argLen is the length of an argument as Redis gets it.
func argLen(a any) int {
	switch a := a.(type) {
	case string:
		return len(a)
	case []byte:
		return len(a)
	}
	return len(fmt.Sprint(a))
}

// argText is an argument as text, a copy (a lock's argument may be a part
// of something larger), cut to MaxValue when cut says so. Bytes are the
// text they hold, as Redis gets them.
func argText(a any, cut bool) string {
	limit := MaxArg
	if cut {
		limit = MaxValue
	}
	switch a := a.(type) {
	case string:
		if len(a) <= limit {
			return strings.Clone(a)
		}
		return Cut(a, limit)
	case []byte:
		return CutHead(string(a[:min(len(a), limit+utf8.UTFMax)]), len(a), limit)
	}
	return Cut(fmt.Sprint(a), limit)
}

// rawArg is an argument as text, without copying a string.
func rawArg(a any) string {
	if s, ok := a.(string); ok {
		return s
	}
	return fmt.Sprint(a)
}
