package scenarios

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// faultVerbLesson is a lesson whose timeline has line where its verb goes;
// its setup has what every fault verb needs (a replica for failover, and
// rejoin).
func faultVerbLesson(setup, line string) []byte {
	return []byte("lesson x\nnaive setnx\ntitle\n  en T\n  zh 题\nsummary\n  en S\n  zh 概\n" + setup +
		"client A work=2s\nclient B start=1s\nrun until=1s\n" + line + "run end\nexpect\n  setnx -\nstory en\nA story.\n")
}

// A fault's verbs in a lesson's timeline are its record's, in scenarios/sim
// (sim.LessonVerbs): the parser lists them, parses each as its record says
// it takes, and derives the search from what the record says it makes of
// it; the parser's own verbs are none of them.
func TestFaultVerbsAreTheRecords(t *testing.T) {
	var names []string
	for _, v := range sim.LessonVerbs() {
		names = append(names, v.Name)
		if slices.Contains(ownVerbs, v.Name) || v.Name == "expect" || slices.Contains(headerVerbs, v.Name) {
			t.Errorf("%s is a fault's verb and the parser's own", v.Name)
		}
	}
	if want := slices.Concat(ownVerbs, names, []string{"expect"}); !slices.Equal(timelineVerbs, want) {
		t.Errorf("the timeline's verbs are %v, want the parser's own, the faults' and expect: %v", timelineVerbs, want)
	}
	args := map[sim.VerbArgs]string{sim.TakesNothing: "", sim.TakesClient: " A", sim.TakesClientServers: " A redis-2 redis-3",
		sim.TakesServer: " redis-2", sim.TakesServerBy: " redis-2 by=1s"}
	base, err := ParseLesson("x.lesson", faultVerbLesson("setup replica rejoin\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range sim.LessonVerbs() {
		line := v.Name + args[v.Takes] + "\n"
		s, err := ParseLesson("x.lesson", faultVerbLesson("setup replica rejoin\n", line))
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		lacks, searched := slices.Contains(s.Search.Lacks, v.Name), v.Fault != "" && slices.Contains(s.Search.Faults, v.Fault)
		switch v.Search {
		case sim.SearchFault:
			if !searched || lacks {
				t.Errorf("%q: the search has %v and lacks %v, want %s's moves", line, s.Search.Faults, s.Search.Lacks, v.Fault)
			}
		case sim.SearchLacks, sim.SearchAsked:
			if !lacks || slices.Equal(s.Search.Faults, base.Search.Faults) == false {
				t.Errorf("%q: the search has %v and lacks %v, want it to lack %s", line, s.Search.Faults, s.Search.Lacks, v.Name)
			}
		case sim.SearchNothing:
			if lacks || !slices.Equal(s.Search.Faults, base.Search.Faults) {
				t.Errorf("%q: the search has %v and lacks %v, want it as without the verb", line, s.Search.Faults, s.Search.Lacks)
			}
		}
	}
}

// The parser has no fault verb of its own: no fault's verb is named in its
// files, so a fault's verb is whatever its record says, and a new fault is
// a new file in scenarios/sim.
func TestParserNamesNoFaultVerb(t *testing.T) {
	for _, file := range []string{"lesson.go", "lesson_timeline.go", "search.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range sim.LessonVerbs() {
			if strings.Contains(string(src), `"`+v.Name+`"`) {
				t.Errorf("%s names the fault verb %q: its record in scenarios/sim says what it is", file, v.Name)
			}
		}
	}
}

// The faults' verbs, read from their records, are refused in the words
// they were when the parser kept its own list: whole messages, for each
// kind of argument.
func TestFaultVerbErrors(t *testing.T) {
	for _, tc := range []struct{ setup, line, want string }{
		{"", "explode A", `x.lesson:12:1: unknown verb "explode"; valid: client, say, run, hold, unhold, pause, resume, hang, unhang, crash, partition, drop-replies, heal, failover, rejoin, stop-server, restart-server, clock-jump, clock-back, slow, expect`},
		{"", "pause", "x.lesson:12:6: want a client name after pause"},
		{"", "pause D", `x.lesson:12:7: unknown client "D"; declared: A, B`},
		{"", "crash A B", "x.lesson:12:9: crash takes one client"},
		{"", "unhold A B", "x.lesson:12:10: unhold takes one client"},
		{"", "partition A", "x.lesson:12:12: want the servers the client is cut off from: partition A redis-4 redis-5"},
		{"", "drop-replies A", "x.lesson:12:15: want the servers whose replies the client loses: drop-replies A redis-3"},
		{"", "partition A redis-6", `x.lesson:12:13: want a server redis-1 … redis-5, got "redis-6"`},
		{"", "failover now", "x.lesson:12:10: failover takes no arguments"},
		{"", "rejoin", `x.lesson:12:1: rejoin needs "rejoin" in the setup line`},
		{"setup replica rejoin\n", "rejoin now", "x.lesson:13:8: rejoin takes no arguments"},
		{"", "stop-server", "x.lesson:12:12: want stop-server redis-N"},
		{"", "restart-server redis-1 redis-2", "x.lesson:12:24: want restart-server redis-N"},
		{"", "clock-jump redis-1", "x.lesson:12:19: want clock-jump redis-N by=DURATION"},
		{"", "slow redis-1", "x.lesson:12:13: want slow redis-N by=DURATION (by=0s: fast again)"},
		{"", "slow redis-1 at=1s", `x.lesson:12:14: unknown argument of slow "at"; valid: by`},
		{"", "clock-jump redis-1 by=soon", `x.lesson:12:20: want a duration such as 30s, 1.5s or 2m, got "soon"`},
	} {
		_, err := ParseLesson("x.lesson", faultVerbLesson(tc.setup, tc.line+"\n"))
		var le *LessonError
		if !errors.As(err, &le) || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.line, err, tc.want)
		}
	}
}

// docs/lessons.md's table of timeline verbs has every fault's.
func TestLessonsPageHasEveryFaultVerb(t *testing.T) {
	page, err := os.ReadFile("../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range sim.LessonVerbs() {
		if !strings.Contains(string(page), "\n| `"+v.Name) && !strings.Contains(string(page), "/ `"+v.Name+" ") {
			t.Errorf("docs/lessons.md's timeline table has no %s", v.Name)
		}
	}
}
