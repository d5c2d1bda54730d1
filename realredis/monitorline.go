package realredis

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file reads MONITOR's lines, for lockstep monitor. Redis writes each
// command it runs as one line:
//
//	1700000000.123456 [0 127.0.0.1:50312] "set" "lockstep:3f9a1c2e:lock" "A#1" "px" "900" "nx"
//
// the time, the database and the client's address in brackets ("lua" for a
// command a script ran, "unix:PATH" for every client on the unix socket),
// then the arguments, each quoted as redis-cli quotes (sdscatrepr: \" \\ \n
// \r \t \a \b and \xHH for any other byte that does not print).

// MonitorLine is one line of MONITOR, read.
type MonitorLine struct {
	// Raw is the line as the server wrote it, without RESP's "+" and CRLF.
	Raw string
	// head is Raw up to the arguments: "1700000000.123456 [0 127.0.0.1:50312] ".
	head string
	// Addr is the client's address as MONITOR names it.
	Addr string
	// Args are the command and its arguments, unquoted. A line cut short
	// (a huge value) has the arguments before the cut.
	Args []string
}

// ParseMonitorLine reads one line of MONITOR; ok is false for text that is
// not one (the server's +OK, a line of another program).
func ParseMonitorLine(raw string) (l MonitorLine, ok bool) {
	open := strings.Index(raw, " [")
	if open < 0 {
		return MonitorLine{}, false
	}
	// The address may hold spaces (a unix socket's path); the arguments
	// start at the first `] "` after it.
	db, rest, ok := strings.Cut(raw[open+2:], " ")
	if !ok || db == "" {
		return MonitorLine{}, false
	}
	end := strings.Index(rest, `] "`)
	if end < 0 {
		return MonitorLine{}, false
	}
	args := splitQuoted(rest[end+2:])
	if len(args) == 0 {
		return MonitorLine{}, false
	}
	head := raw[:len(raw)-len(rest)+end+2]
	return MonitorLine{Raw: raw, head: head, Addr: rest[:end], Args: args}, true
}

// Command is the line's command, lower case ("set", "client").
func (l MonitorLine) Command() string { return strings.ToLower(l.Args[0]) }

// arg is the line's argument i (0 is the command), lower case, or "".
func (l MonitorLine) arg(i int) string {
	if i < len(l.Args) {
		return strings.ToLower(l.Args[i])
	}
	return ""
}

// splitQuoted reads MONITOR's quoted arguments, up to the first that is
// not whole (a line cut short).
func splitQuoted(s string) []string {
	var args []string
	for {
		s = strings.TrimLeft(s, " ")
		if !strings.HasPrefix(s, `"`) {
			return args
		}
		arg, rest, ok := unquote(s[1:])
		if !ok {
			return args
		}
		args, s = append(args, arg), rest
	}
}

// unquote reads one argument after its opening quote, up to its closing
// one: the argument and what follows it.
func unquote(s string) (arg, rest string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c != '\\' || i+1 == len(s):
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		default:
			b.WriteByte(e) // \" and \\
		}
	}
	return "", "", false
}

// quote writes arg as MONITOR does.
func quote(arg string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(arg); i++ {
		switch c := arg[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\a':
			b.WriteString(`\a`)
		case c == '\b':
			b.WriteString(`\b`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// redactedText says "(redacted)" where MONITOR redacts, so that MONITOR's
// raw stream never shows a password: Redis 6.2 and later redact AUTH's
// arguments, HELLO's after AUTH and MIGRATE's after AUTH or AUTH2
// themselves; an older server, or a proxy in front of one, may not.
const redactedText = "(redacted)"

// Redacted is the line's text with every password in it redacted, as Redis
// 6.2 and later write it: Raw itself where nothing is left to redact.
func (l MonitorLine) Redacted() string {
	secret := secrets(l)
	changed := false
	args := make([]string, len(l.Args))
	for i, a := range l.Args {
		if secret[i] && a != redactedText {
			a, changed = redactedText, true
		}
		args[i] = quote(a)
	}
	if !changed {
		return l.Raw
	}
	return l.head + strings.Join(args, " ")
}

// secrets marks the arguments of l that are credentials: AUTH [user]
// password, HELLO … AUTH user password, MIGRATE … AUTH password | AUTH2
// user password.
func secrets(l MonitorLine) map[int]bool {
	secret := map[int]bool{}
	mark := func(from, n int) {
		for i := from; i < from+n && i < len(l.Args); i++ {
			secret[i] = true
		}
	}
	switch l.Command() {
	case "auth":
		mark(1, len(l.Args))
	case "hello", "migrate":
		for i := 1; i < len(l.Args); i++ {
			switch l.arg(i) {
			case "auth":
				n := 2 // HELLO's AUTH takes a user and a password
				if l.Command() == "migrate" {
					n = 1
				}
				mark(i+1, n)
			case "auth2":
				mark(i+1, 2)
			}
		}
	}
	return secret
}

// runPrefix is a run's key prefix (NewPrefix), at the start of a key or of
// its hash tag (a cluster's keys: "{lockstep:3f9a1c2e:…}…"); its group is
// the run's 8 hex digits. bench's keys (lockstep-bench:…) are not a run's.
var runPrefix = regexp.MustCompile(`^\{?lockstep:([0-9a-f]{8}):`)

// runOf is the run whose prefix the first of args that has one carries, or
// "".
func runOf(args []string) string {
	for _, a := range args {
		if m := runPrefix.FindStringSubmatch(a); m != nil {
			return m[1]
		}
	}
	return ""
}
