package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A lesson file is bounded as a trace file is, and the bounds are checked
// when it is parsed, before anything runs: one line of get-then-del
// changed to retry=1ns once made a run of 24 GB, and 3,000 clients one of
// 23 GB (#26). Each case names the line, the column and the limit.
func TestLessonLimits(t *testing.T) {
	clients := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "client D%d start=3s attempts=1\n", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, old, new string
		pos, want      string
	}{
		{"a retry of a nanosecond", "client B start=1s retry=10s", "client B start=1s retry=1ns", "16:19",
			"retry: 1ns is shorter than a lesson's shortest wait (1ms)"},
		{"a backoff of a nanosecond", "client A work=29s", "client A work=29s backoff=1ns", "15:19",
			"backoff: 1ns is shorter than a lesson's shortest wait (1ms)"},
		{"a lease of a nanosecond", "client A work=29s", "setup ttl=1ns\nclient A work=29s", "15:7",
			"ttl: 1ns is shorter than a lesson's shortest lease (1ms)"},
		{"a retry every millisecond for five minutes", "client B start=1s retry=10s", "client B start=1s retry=1ms", "16:19",
			"client B may try for the lock 299001 times in the lesson's 5m (every 1ms)"},
		{"a retry every millisecond after four minutes of prep", "client B start=1s retry=10s", "client B start=1s prep=4m retry=1ms", "16:27",
			"client B may try for the lock 59001 times in the lesson's 5m (every 1ms)"},
		{"prep of two hours", "client A work=29s", "client A prep=2h work=29s", "15:10",
			"prep: 2h is longer than a lesson may run (1h)"},
		{"a retry every millisecond, with jitter", "client B start=1s retry=10s", "client B start=1s retry=2ms jitter", "16:19",
			"client B may try for the lock 299001 times"},
		{"a watchdog renewing every millisecond", "client A work=29s", "setup ttl=3ms\nclient A work=29s", "15:7",
			"a watchdog renews a lease of 3ms every 1ms"},
		{"a client's lease of a nanosecond", "client A work=29s", "client A work=29s lease=1ns", "15:19",
			"lease: 1ns is shorter than a lesson's shortest lease (1ms)"},
		{"a client's watchdog renewing every millisecond", "client A work=29s", "client A work=29s lease=3ms", "15:19",
			"a watchdog renews client A's lease of 3ms every 1ms"},
		{"nine clients", "client C start=2s retry=10s work=5s\n", "client C start=2s retry=10s work=5s\n" + clients(6), "23:8",
			"client D5 is the 9th; a lesson has at most 8 clients"},
		{"a thousand and one steps", "unhold A\n", "unhold A\n" + strings.Repeat("say\n  en x\n  zh x\n", 995), "3004:1",
			"the 1001st step; a timeline has at most 1000 steps"},
		{"a horizon of two hours", "client A work=29s", "setup horizon=2h\nclient A work=29s", "15:7",
			"horizon: 2h is longer than a lesson may run (1h)"},
		{"work of two hours", "client A work=29s", "client A work=2h", "15:10",
			"work: 2h is longer than a lesson may run (1h)"},
		{"a clock jump of a year", "unhold A\n", "unhold A\nclock-jump redis-1 by=8760h\n", "31:20",
			"by: 8760h is longer than a lesson may run (1h)"},
		// A 4,000-character key, in every server's keys of every snapshot,
		// made a lesson of 4.4 KB write 2.19 GB of JSON at 13.4 GB (#37).
		{"a key of 129 characters", "client A work=29s", "setup key=lock:" + strings.Repeat("k", 124) + "\nclient A work=29s", "15:7",
			"key: 129 characters; a lesson's key is at most 128"},
		{"a client's key of 129 characters", "client A work=29s", "client A work=29s key=lock:" + strings.Repeat("键", 124), "15:19",
			"key: 129 characters; a lesson's key is at most 128"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantLessonError(t, lessonWith(t, tc.old, tc.new), tc.pos, tc.want)
		})
	}
}

// The bounds leave room: every built-in lesson is well inside them, and
// so is retries, whose clients spin every 0.2s with and without backoff,
// with a fifth client spinning beside them.
func TestLessonLimitsLeaveRoom(t *testing.T) {
	for _, s := range All() {
		if n := estimate(s); n > MaxLessonCommands/2 {
			t.Errorf("%s may send %d commands, more than half of what a lesson may (%d)", s.ID, n, MaxLessonCommands)
		}
	}
	s, _ := Lookup("retries")
	src := strings.Replace(string(s.Source), "client D ", "client E start=0.1s retry=200ms work=1s\nclient D ", 1)
	if _, err := ParseLesson("retries.lesson", []byte(src)); err != nil {
		t.Errorf("retries with a fifth client: %v", err)
	}
}

// estimate is what the parser reckons a built-in lesson may send.
func estimate(s Scenario) int64 {
	p := &lessonParser{file: s.File, clients: map[string]bool{}, seen: map[string]bool{},
		expect: map[string][]string{}, nodes: 5}
	if err := p.split(s.Source); err != nil {
		panic(err)
	}
	if err := p.parse(); err != nil {
		panic(err)
	}
	return p.commands
}

// A course is bounded too: its lessons, its directories of lessons, and
// an implementation named once per lesson.
func TestCourseLimits(t *testing.T) {
	none := func(string) ([]Scenario, error) { return nil, nil }
	for _, tc := range []struct{ name, src, want string }{
		{"a hundred and one lessons", strings.Repeat("lesson gc-pause\n", MaxCourseLessons+1),
			"c.course:101:1: the 101st lesson; a course has at most 100"},
		{"eleven directories", strings.Repeat("lessons mine\n", MaxCourseDirs+1) + "lesson gc-pause\n",
			"c.course:11:1: the 11th lessons line; a course names at most 10 directories"},
		{"an implementation twice", "lesson gc-pause impls=uuid-lua,uuid-lua\n",
			"c.course:1:17: uuid-lua named twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseCourse("c.course", []byte(tc.src), none); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("ParseCourse: %v, want %q", err, tc.want)
			}
		})
	}
}

// wantLessonError parses text as mine.lesson and wants the error at pos
// ("line:col") that says want; it returns the error.
func wantLessonError(t *testing.T, text []byte, pos, want string) error {
	t.Helper()
	_, err := ParseLesson("mine.lesson", text)
	var le *LessonError
	if !errors.As(err, &le) {
		t.Fatalf("ParseLesson: %v, want a LessonError", err)
	}
	if !strings.HasPrefix(err.Error(), "mine.lesson:"+pos+":") || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want mine.lesson:%s: … %q", err, pos, want)
	}
	return err
}
