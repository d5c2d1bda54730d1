package scenarios

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// check-then-write (issue #41): a client that checks before it writes is
// caught by a pause before its check (A writes nothing) and not by one
// after it (B writes what it read before the pause); only a resource that
// checks the fencing token keeps the data.
func TestCheckCatchesAPauseBeforeItNotAfter(t *testing.T) {
	tr := traceOf(t, "check-then-write", "uuid-lua-watchdog")
	lines := eventTexts(tr)
	for _, want := range []string{
		`^A finds B#1 on the lock's key in place of its own A#1: it writes nothing and releases$`,
		`^B still finds its own value \(B#1\) on the lock's key: it writes`,
	} {
		if !slices.ContainsFunc(lines, regexp.MustCompile(want).MatchString) {
			t.Errorf("check-then-write × uuid-lua-watchdog says nothing like %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "A writes stock") }) {
		t.Errorf("A wrote after its check found the lock gone")
	}
	if !slices.Equal(tr.Broken(), []string{"mutex", "resource"}) {
		t.Errorf("check-then-write × uuid-lua-watchdog broke %v; want mutex and resource, by B's write after its check", tr.Broken())
	}
	if got := traceOf(t, "check-then-write", "fenced").Broken(); slices.Contains(got, "resource") {
		t.Errorf("check-then-write × fenced broke %v: the store's token check should refuse B's write", got)
	}
	// Without the check, A's pause is not caught either: A writes.
	orig, _ := Lookup("check-then-write")
	s, err := ParseLesson("mine.lesson", []byte(strings.ReplaceAll(string(orig.Source), " check\n", "\n")))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := s.Run(mustImpl(t, "uuid-lua-watchdog"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(eventTexts(plain), func(l string) bool { return strings.HasPrefix(l, "A writes stock") }) {
		t.Errorf("without its check A does not write after its pause:\n%s", strings.Join(eventTexts(plain), "\n"))
	}
}

// check is a flag of a client line, and the search's clients check too.
func TestCheckIsAClientFlag(t *testing.T) {
	if _, err := ParseLesson("mine.lesson", lessonWith(t, "client C start=2s retry=10s work=5s", "client C start=2s retry=10s work=5s check=yes")); err == nil || !strings.Contains(err.Error(), "check is a flag") {
		t.Errorf("check=yes: %v", err)
	}
	s, _ := Lookup("check-then-write")
	if !s.Search.Check || !strings.Contains(s.Command("uuid-lua"), " --check") {
		t.Errorf("check-then-write's search does not check before writes: %+v, %s", s.Search, s.Command("uuid-lua"))
	}
}

func eventTexts(tr *trace.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		out = append(out, e.Text.EN)
	}
	return out
}

// idempotent-section (issue #41): gc-pause's timeline over a job with an
// idempotency key. Both holders run the job, the second run changes
// nothing, and no lock loses an update; gc-pause, the same pause over a
// decrement, loses B's.
func TestIdempotentSectionRunsTwiceLosesNothing(t *testing.T) {
	tr := traceOf(t, "idempotent-section", "uuid-lua-watchdog")
	lines := eventTexts(tr)
	for _, want := range []string{
		`^B runs the job: it records order 8801 under its idempotency key and stock:product:1001 = 99`,
		`^A runs the job again: order 8801 is recorded already, and stock:product:1001 stays 99`,
	} {
		if !slices.ContainsFunc(lines, regexp.MustCompile(want).MatchString) {
			t.Errorf("idempotent-section × uuid-lua-watchdog says nothing like %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if last := tr.Events[len(tr.Events)-1].Snap.Resource; last.Value != 99 || last.Version != 2 {
		t.Errorf("after both runs the stock is %d after %d writes; want 99 after 2", last.Value, last.Version)
	}
	if !slices.Equal(tr.Broken(), []string{"mutex"}) {
		t.Errorf("idempotent-section × uuid-lua-watchdog broke %v; want mutex alone", tr.Broken())
	}
	if got := traceOf(t, "gc-pause", "uuid-lua-watchdog").Broken(); !slices.Contains(got, "resource") {
		t.Errorf("gc-pause × uuid-lua-watchdog broke %v: the same pause over a decrement should lose B's update", got)
	}
	s, _ := Lookup("idempotent-section")
	for impl, broken := range s.Expect {
		if slices.Contains(broken, "resource") {
			t.Errorf("idempotent-section expects %s to break resource: a second run of an idempotent job loses nothing", impl)
		}
	}
}

// clock-back (issue #41): a server's clock set back makes its keys live
// longer, never shorter. A single server's crashed holder keeps B out 40s
// past the lease; Redlock's majority on the other servers lets B in on
// time; no lock breaks mutex, ownership or resource for it.
func TestClockBackCostsWaitingNotSafety(t *testing.T) {
	took := func(impl string) string {
		tr := traceOf(t, "clock-back", impl)
		for _, e := range tr.Events {
			if strings.HasPrefix(e.Text.EN, "B now holds the lock") {
				return e.T.String()
			}
		}
		return "never"
	}
	if got := took("uuid-lua"); got != "1m18s" {
		t.Errorf("clock-back × uuid-lua: B got the lock at %s; want 1m18s, 40s after a crashed holder's lease", got)
	}
	if got := took("redlock"); got != "38s" {
		t.Errorf("clock-back × redlock: B got the lock at %s; want 38s, its majority on time", got)
	}
	s, _ := Lookup("clock-back")
	for impl, broken := range s.Expect {
		if impl == "no-lock" || impl == "local-mutex" {
			continue // no lock at all: two holders, clock or not
		}
		if i := slices.IndexFunc(broken, func(b string) bool { return b != "liveness" }); i >= 0 {
			t.Errorf("clock-back expects %s to break %s: a clock set back only delays", impl, broken[i])
		}
	}
}

// read-write (issue #41): readers share a read-write lock and a writer
// comes in alone; a read release that deletes the whole hash lets the
// writer in beside a reader still reading; a lock with no read mode keeps
// everyone apart, its readers taking turns.
func TestReadWriteLesson(t *testing.T) {
	fix := traceOf(t, "read-write", "redisson-rw")
	if got := fix.Broken(); len(got) != 0 {
		t.Errorf("read-write × redisson-rw broke %v; want nothing", got)
	}
	lines := eventTexts(fix)
	for _, want := range []string{
		`^A now holds the read lock \(token A#1\)$`,
		`^B now holds the read lock \(token B#1\)$`, // beside A
		`^C now holds the lock \(token C#1\), after 5 attempts`,
		`^D does not get the lock; it retries in 5s$`, // C writes
	} {
		if !slices.ContainsFunc(lines, regexp.MustCompile(want).MatchString) {
			t.Errorf("read-write × redisson-rw says nothing like %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	naive := traceOf(t, "read-write", "rw-unchecked")
	if !slices.Equal(naive.Broken(), []string{"mutex", "ownership"}) {
		t.Errorf("read-write × rw-unchecked broke %v; want mutex and ownership", naive.Broken())
	}
	lines = eventTexts(naive)
	for _, want := range []string{
		`^A deleted the lock with B#1's hold still in it$`,
		`^B \(reader\) and C both believe they hold the lock at the same time$`,
	} {
		if !slices.ContainsFunc(lines, regexp.MustCompile(want).MatchString) {
			t.Errorf("read-write × rw-unchecked says nothing like %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	plain := traceOf(t, "read-write", "uuid-lua-watchdog")
	if got := plain.Broken(); len(got) != 0 {
		t.Errorf("read-write × uuid-lua-watchdog broke %v; want nothing: readers take the whole lock", got)
	}
	lines = eventTexts(plain)
	if !slices.ContainsFunc(lines, regexp.MustCompile(`^B wants the lock to read: this lock has no read mode`).MatchString) ||
		!slices.ContainsFunc(lines, regexp.MustCompile(`^B now holds the lock \(token B#1\), after 3 attempts .* 20s of waiting$`).MatchString) {
		t.Errorf("read-write × uuid-lua-watchdog: B does not wait its turn for the whole lock:\n%s", strings.Join(lines, "\n"))
	}
}

// read is a flag of a client line; the search has as many readers as the
// lesson, less one writer.
func TestReadIsAClientFlag(t *testing.T) {
	if _, err := ParseLesson("mine.lesson", lessonWith(t, "client C start=2s retry=10s work=5s", "client C start=2s retry=10s work=5s read=yes")); err == nil || !strings.Contains(err.Error(), "read is a flag") {
		t.Errorf("read=yes: %v", err)
	}
	s, _ := Lookup("read-write")
	if o := s.Options("rw-unchecked"); o.Readers != 2 || o.Clients != 3 || !strings.Contains(s.Command("rw-unchecked"), " --readers 2") {
		t.Errorf("read-write's search: %d readers of %d clients, %s; want 2 of 3", o.Readers, o.Clients, s.Command("rw-unchecked"))
	}
}
