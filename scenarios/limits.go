package scenarios

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// The bounds of a lesson file, checked when it is parsed, before anything
// runs, as a trace file's are when it is loaded: a lesson is a page and a
// timeline of minutes, not a data set or a soak test. Without them one
// line of a built-in lesson changed to retry=1ns made a run of 24 GB, and
// 3,000 clients one of 23 GB. docs/lessons.md lists them for the author.
const (
	// MaxLessonSize bounds a lesson or a course file, in bytes.
	MaxLessonSize = 1 << 20
	// MaxLessonHorizon bounds how long a lesson's world may run (its
	// horizon, a run until=), and so every duration a lesson gives.
	MaxLessonHorizon = time.Hour
	// MaxLessonClients bounds a lesson's clients; the built-in ones have
	// at most four.
	MaxLessonClients = 8
	// MaxLessonSteps bounds a timeline's steps (client, say, run, hold, …
	// lines), as the explorer's MaxMoves bounds a schedule's moves.
	MaxLessonSteps = 1000
	// MaxLessonID bounds a lesson's id, which names keys on real servers.
	MaxLessonID = 64
	// MaxLessonKey bounds the lock's key (setup key=, a client's key=), in
	// characters: the key is in every server's keys of every snapshot, and
	// in most commands and lines of narration. A key of 4,000 characters
	// made a lesson of 4.4 KB, eight clients on nine servers, write 2.19 GB
	// of JSON at 13.4 GB, and one of 16,000 ran out of memory.
	MaxLessonKey = 128
	// MinLessonWait is the shortest wait between a client's acquire
	// attempts (retry=, backoff=), and MinLessonTTL the shortest lease:
	// Redis counts a lease in whole milliseconds (PX), and jitter draws
	// its waits in them.
	MinLessonWait = time.Millisecond
	MinLessonTTL  = time.Millisecond
	// MaxLessonCommands bounds the commands a lesson's clients may send
	// within its horizon, reckoned before it runs (reckon): each acquire
	// attempt, once per server of the widest world the lesson may run in
	// (Redlock's five, or setup nodes=N), and each renewal of a watchdog
	// (one every TTL/3), for every client, as if each client waited or held
	// the lock to the end. A run costs a few kilobytes an event: at the
	// bound, the widest world (eight clients, nine servers: 38,500 events
	// against redlock) plays in 340 MB.
	MaxLessonCommands = 20_000
	// MaxCourseLessons and MaxCourseDirs bound a course: its lesson lines,
	// and its lessons lines (each a directory of lesson files).
	MaxCourseLessons = 100
	MaxCourseDirs    = 10
)

// fileLines splits a lesson or course file (kind says which) into its
// lines, and refuses one that is too large, or holds a byte that is not
// UTF-8 or a character a terminal would act on or hide (badChar). A
// leading byte-order mark, which some editors write, is skipped, and
// lines may end in CRLF.
func fileLines(name, kind string, data []byte) ([]string, error) {
	if len(data) > MaxLessonSize {
		return nil, fmt.Errorf("%s: %d bytes; a %s file is at most %d (1 MiB)", name, len(data), kind, MaxLessonSize)
	}
	var lines []string
	n := 0
	for raw := range strings.Lines(strings.TrimPrefix(string(data), "\ufeff")) {
		n++
		raw = strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if col, msg := badChar(raw); msg != "" {
			return nil, &LessonError{File: name, Line: n, Col: col, Msg: msg}
		}
		lines = append(lines, raw)
	}
	return lines, nil
}

// badChar finds the first byte of a line that is not UTF-8, or the first
// character text.Clean would escape but a tab: the column (in
// characters) and what is wrong there. A lesson's texts reach terminals
// as they are written — the TUI, play, the pages of docs/ — so the parser
// refuses what CleanText would have to escape, rather than clean it: the
// author learns where it is, and no front end has to remember to clean.
func badChar(raw string) (col int, msg string) {
	col = 1
	for i, r := range raw {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(raw[i:], "\uFFFD"):
			return col, fmt.Sprintf("byte %#02x is not UTF-8: a lesson or course file is UTF-8 text", raw[i])
		case r == '\t' || !text.Escaped(r):
		case unicode.IsControl(r):
			return col, fmt.Sprintf("control character U+%04X: lesson and course files have none but tab, so that no text of theirs can drive a terminal", r)
		default:
			return col, fmt.Sprintf("invisible character U+%04X (a bidi control or a zero-width character): lesson and course files have none, so that no text of theirs shows other than it is", r)
		}
		col++
	}
	return 0, ""
}

// keyLength refuses a key= value (field f of l) longer than MaxLessonKey.
func (p *lessonParser) keyLength(l line, f int, key string) error {
	if n := utf8.RuneCountInString(key); n > MaxLessonKey {
		return p.errAt(l, f, "key: %d characters; a lesson's key is at most %d", n, MaxLessonKey)
	}
	return nil
}

// oneLine is a text as a front end shows it, on one line: a tab is a
// space.
func oneLine(s string) string { return strings.ReplaceAll(s, "\t", " ") }

// clientDecl is a client line, for reckon.
type clientDecl struct {
	l          line
	field      int // the retry= field, or the name's
	leaseField int // the lease= field, 0 when it has none
	prog       sim.Program
}

// renewals is how many times a watchdog may renew d's lease (its own, or
// the setup's ttl) within extent: one every third of the lease.
func (d clientDecl) renewals(ttl, extent time.Duration) int64 {
	if d.prog.Lease > 0 {
		ttl = d.prog.Lease
	}
	return int64(extent/(ttl/3)) + 1
}

// reckon counts the commands the lesson's clients may send within its
// horizon (MaxLessonCommands says how) and refuses a lesson that may send
// more, naming the line that sends the most.
func (p *lessonParser) reckon() error {
	setup := p.s.Setup.WithDefaults()
	extent := max(setup.Horizon, p.now)
	servers := int64(p.nodes)
	renewals := int64(extent/(setup.TTL/3)) + 1
	total, allRenewals := int64(0), int64(0)
	most, mostTries, leased := -1, int64(0), -1
	for i, d := range p.decls {
		r := d.renewals(setup.TTL, extent)
		allRenewals += r
		if d.prog.Lease > 0 && (leased < 0 || r > p.decls[leased].renewals(setup.TTL, extent)) {
			leased = i
		}
		n := tries(d.prog, extent)
		total += n*servers + r
		if most < 0 || n > mostTries {
			most, mostTries = i, n
		}
	}
	p.commands = total
	if total <= MaxLessonCommands {
		return nil
	}
	over := fmt.Sprintf("up to %d commands in all (each try on each of %d servers, each renewal), more than a lesson may send (%d)", total, servers, MaxLessonCommands)
	if leased >= 0 && allRenewals > mostTries*servers {
		d := p.decls[leased]
		return p.errAt(d.l, d.leaseField, "a watchdog renews client %s's lease of %s every %s: %d renewals in the lesson's %s, and %s; give %s a longer lease or the lesson a shorter horizon",
			d.l.fields[1], dur(d.prog.Lease), dur(d.prog.Lease/3), d.renewals(setup.TTL, extent), dur(extent), over, d.l.fields[1])
	}
	if p.ttlAt.n > 0 && allRenewals > mostTries*servers {
		return p.errAt(p.ttlAt, p.ttlField, "a watchdog renews a lease of %s every %s: %d renewals a client in the lesson's %s, and %s; give a longer ttl or a shorter horizon",
			dur(setup.TTL), dur(setup.TTL/3), renewals, dur(extent), over)
	}
	d := p.decls[most]
	wait := d.prog.Retry
	if wait <= 0 {
		wait = sim.DefaultRetry
	}
	every := "every " + dur(wait)
	if d.prog.Jitter {
		every = "every " + dur(wait/2) + " at the shortest"
	}
	name := d.l.fields[1]
	return p.errAt(d.l, d.field, "client %s may try for the lock %d times in the lesson's %s (%s): %s; give %s a longer retry, attempts=N, or the lesson a shorter horizon",
		name, mostTries, dur(extent), every, over, name)
}

// tries is how many acquire attempts program p may make within extent if
// it never gets the lock: one at its start (once its prep is done), then
// one after each wait (doubling up to the backoff, the shorter half of it
// with jitter), and with reenter the nested call's, one every retry.
func tries(p sim.Program, extent time.Duration) int64 {
	first := p.Start + p.Prep // the first attempt, once prepared
	if first > extent {
		return 0
	}
	retry := p.Retry
	if retry <= 0 {
		retry = sim.DefaultRetry
	}
	shortest := func(d time.Duration) time.Duration {
		if p.Jitter {
			return d / 2
		}
		return d
	}
	n, t, wait := int64(1), first, retry
	for p.Backoff > 0 && wait < p.Backoff && t <= extent {
		t += shortest(wait)
		if t <= extent {
			n++
		}
		wait = min(wait*2, p.Backoff)
	}
	if t <= extent {
		n += int64((extent - t) / shortest(wait))
	}
	if p.Attempts > 0 {
		n = min(n, int64(p.Attempts))
	}
	if p.Reenter {
		n += int64(extent/retry) + 1
	}
	return n
}

// dur writes d as a lesson would: 5m, 1h, 1ms, 1h30m (Duration's String
// without its zero minutes and seconds).
func dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ordinal writes n as "1st", "2nd", "3rd", "11th", "101st".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}
