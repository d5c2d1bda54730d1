package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// lessonWith is the get-then-del lesson with one line replaced, or with a
// line inserted before the line that starts with before.
func lessonWith(t *testing.T, old, new string) []byte {
	t.Helper()
	s, err := Lookup("get-then-del")
	if err != nil {
		t.Fatal(err)
	}
	src := string(s.Source)
	if !strings.Contains(src, old) {
		t.Fatalf("the lesson has no %q", old)
	}
	return []byte(strings.Replace(src, old, new, 1))
}

// A lesson file with a mistake is refused before anything runs, with the
// position of the mistake and what was expected there.
func TestLessonErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		pos, want      string
	}{
		{"unknown verb", "unhold A\n", "unhold A\nexplode A\n", "31:1", `unknown verb "explode"; valid: client, say, run`},
		{"a mistyped verb", "unhold A\n", "unhold A\nunhld A\n", "31:1", `unknown verb "unhld"; did you mean unhold? valid: client, say, run`},
		{"a mistyped argument", "client A work=29s", "client A wrok=29s", "15:10", `unknown argument of client "wrok"; did you mean work? valid: start, retry`},
		{"unknown client", "unhold A\n", "unhold D\n", "30:8", `unknown client "D"; declared: A, B, C`},
		{"time going backwards", "run until=31.5s\n", "run until=31.5s\nrun until=20s\n", "27:5", "time goes backwards: 20s is before 31.5s"},
		{"unknown implementation", "    reentrant                   -\n", "    reentrant                   -\n    mylock -\n", "", `unknown implementation "mylock"`},
		{"unknown invariant", "    uuid-get-del                mutex ownership resource", "    uuid-get-del                mutex safety", "", `unknown invariant "safety"; valid: mutex, ownership, liveness, resource, or - for none`},
		{"a mistyped invariant", "    uuid-get-del                mutex ownership resource", "    uuid-get-del                mutex ownershp", "", `unknown invariant "ownershp"; did you mean ownership? valid: mutex, ownership, liveness, resource, or - for none`},
		{"a timeline that never ends", "run end\n", "", "34:1", `expect comes after the timeline's "run end"`},
		{"a bad duration", "client A work=29s", "client A work=29sec", "15:10", `want a duration such as 30s`},
		{"a bad prep", "client A work=29s", "client A prep=soon work=29s", "15:10", `want a duration such as 30s, 1.5s or 2m, got "soon"`},
		{"a negative prep", "client A work=29s", "client A work=4s prep=-25s", "15:18", `want a duration such as 30s, 1.5s or 2m, got "-25s"`},
		{"prep given twice", "client A work=29s", "client A prep=1s work=4s prep=25s", "15:26", `prep given twice`},
		{"a bad fail", "client A work=29s", "client A work=29s fail=later", "15:19", `want a duration such as 30s, 1.5s or 2m, got "later"`},
		{"a fail as long as the work", "client A work=29s", "client A work=29s fail=29s", "15:19", `fail: the work fails before it is done: want a duration above 0 and shorter than work (29s)`},
		{"a fail of no time", "client A work=29s", "client A work=29s fail=0s", "15:19", `fail: the work fails before it is done: want a duration above 0 and shorter than work (29s)`},
		{"a fail with no work", "client A work=29s", "client A fail=2s", "15:10", `shorter than work (0s)`},
		{"a hold on an unknown stage", "hold A after=release:1", "hold A after=relase:1", "25:8", "after: want STAGE:N with STAGE one of acquire, release"},
		{"text without Chinese", "    zh A 继续执行释放的剩余部分（如果还有的话）。\n", "", "27:1", `say needs an indented "en" line and a "zh" line`},
		{"an unknown server", "unhold A\n", "unhold A\nstop-server redis-9\n", "31:13", `want a server redis-1 … redis-5, got "redis-9"`},
		{"slow without a delay", "unhold A\n", "unhold A\nslow redis-1\n", "31:", "want slow redis-N by=DURATION"},
		{"slow with a bad delay", "unhold A\n", "unhold A\nslow redis-1 by=fast\n", "31:", "want a duration such as 30s"},
		{"an unknown guard", "client A work=29s", "setup guard=lock\nclient A work=29s", "15:", `unknown guard "lock"; valid: version, in-stock, relative, unique, token`},
		{"a backoff below the first wait", "client A work=29s", "client A work=29s retry=2s backoff=1s", "15:", "backoff is the cap of the doubling wait: want at least retry"},
		{"jitter with a value", "client A work=29s", "client A work=29s jitter=yes", "15:", "jitter is a flag: write it without a value"},
		{"a client declared late", "unhold A\n", "unhold A\nclient D\n", "31:1", "clients are declared before time passes"},
		{"a search with an unknown fault", "explore clients=3", "explore faults=expiry,meteor", "13:", `unknown fault "meteor"; valid: expiry, crash, pause, failover, restart,`},
		{"a search with a mistyped fault", "explore clients=3", "explore faults=expiry,pasue", "13:", `unknown fault "pasue"; did you mean pause? valid: expiry, crash, pause,`},
		{"a search with four clients", "explore clients=3", "explore clients=4", "13:", "clients must be 2 or 3, not 4"},
		{"Redlock on four servers", "explore clients=3", "explore nodes=4", "13:", "nodes must be 3 or 5, not 4"},
		{"a search with an unknown key", "explore clients=3", "explore width=3", "13:", `unknown argument of explore "width"; valid: faults, clients,`},
		{"a search with a mistyped key", "explore clients=3", "explore clinets=3", "13:", `unknown argument of explore "clinets"; did you mean clients? valid:`},
		{"two explore lines", "explore clients=3", "explore clients=3\nexplore depth=3", "14:1", `explore given twice`},
		{"a search after the first client", "unhold A\n", "unhold A\nexplore depth=3\n", "31:1", "explore belongs before the first client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLesson("mine.lesson", lessonWith(t, tc.old, tc.new))
			var le *LessonError
			if !errors.As(err, &le) {
				t.Fatalf("ParseLesson: %v, want a LessonError", err)
			}
			if !strings.HasPrefix(err.Error(), "mine.lesson:"+tc.pos) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want mine.lesson:%s… %q", err, tc.pos, tc.want)
			}
		})
	}
}

// A file that stops before its timeline ends is refused at its end.
func TestLessonWithoutEnd(t *testing.T) {
	src := "lesson x\nnaive setnx\ntitle\n  en T\n  zh 题\nsummary\n  en S\n  zh 概\nclient A\nrun until=1s\n"
	_, err := ParseLesson("short.lesson", []byte(src))
	if err == nil || err.Error() != `short.lesson:11:1: the timeline never ends: want "run end" after the last step` {
		t.Errorf("ParseLesson: %v", err)
	}
}

// An instructor's copy of a lesson with its own story and a fourth client
// parses and plays; the copy is its own lesson, not the built-in one.
func TestInstructorsLesson(t *testing.T) {
	src := lessonWith(t, "client C start=2s retry=10s work=5s\n", "client C start=2s retry=10s work=5s\nclient D start=3s retry=10s work=5s\n")
	src = []byte(strings.Replace(string(src), "lesson get-then-del", "lesson my-get-then-del", 1))
	s, err := ParseLesson("mine.lesson", src)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(mustImpl(t, "uuid-get-del"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(tr.Clients, ","), "D") {
		t.Errorf("clients %v, want a D", tr.Clients)
	}
	if exp, ok := s.Expected("uuid-get-del"); !ok || len(exp) == 0 {
		t.Errorf("expected %v %v", exp, ok)
	}
}

func mustImpl(t *testing.T, name string) lockimpl.Info {
	t.Helper()
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// A course file names lessons (built-in, or from a directory it names),
// implementations and a step; mistakes have their position.
func TestCourseFile(t *testing.T) {
	none := func(string) ([]Scenario, error) { return nil, nil }
	c, err := ParseCourse("c.course", []byte("course Week 3\nlang zh\nspeed 1\nspoilers off\nlesson get-then-del impls=uuid-get-del,uuid-lua step=7\nlesson gc-pause\n"), none)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Week 3" || c.Lang != "zh" || c.Speed != 1 || c.Spoilers || len(c.Entries) != 2 ||
		c.Entries[0].Step != 7 || strings.Join(c.Entries[0].Impls, ",") != "uuid-get-del,uuid-lua" || c.Entries[1].Impls[0] != "uuid-lua-watchdog" {
		t.Errorf("course %+v", c)
	}
	for _, tc := range []struct{ src, want string }{
		{"lesson nope\n", `c.course:1:8: unknown lesson "nope"; valid: oversell, setnx-no-ex`},
		{"lesson get-then-del impls=mylock\n", `c.course:1:21: unknown implementation "mylock"`},
		{"lesson get-then-del step=-1\n", `c.course:1:21: step: want a step number from 0`},
		{"spoilers maybe\nlesson gc-pause\n", "c.course:1:10: want spoilers on"},
		{"speed 0\nlesson gc-pause\n", "c.course:1:7: want speed N"},
		{"speed 3\nlesson gc-pause\n", "c.course:1:7: want speed N: steps per second, one of the player's speeds"},
		{"course x\n", `c.course:2:1: a course needs at least one "lesson ID" line`},
		{"play gc-pause\n", `c.course:1:1: unknown verb "play"; valid: course, lang, speed, spoilers, lessons, lesson`},
		{"lesosn gc-pause\n", `c.course:1:1: unknown verb "lesosn"; did you mean lesson? valid: course, lang, speed, spoilers, lessons, lesson`},
		{"lesson get-then-dle\n", `c.course:1:8: unknown lesson "get-then-dle"; did you mean get-then-del? valid: oversell,`},
		{"lesson get-then-del stp=3\n", `c.course:1:21: unknown argument of lesson "stp"; did you mean step? valid: impls, step`},
		{"lesson get-then-del foo=3\n", `c.course:1:21: unknown argument of lesson "foo"; valid: impls, step`},
	} {
		if _, err := ParseCourse("c.course", []byte(tc.src), none); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseCourse(%q): %v, want %q", tc.src, err, tc.want)
		}
	}
}

// "fix IMPL" names the implementation set beside the naive one; without it,
// Fix works one out from the expectations.
func TestLessonFix(t *testing.T) {
	s, _ := Lookup("hung-holder")
	if got := s.Fix(s.Naive); got != "fenced" {
		t.Errorf("hung-holder's fix: %s, want fenced (its fix line)", got)
	}
	g, _ := Lookup("get-then-del")
	if got := g.Fix(g.Naive); got != "uuid-lua" {
		t.Errorf("get-then-del's fix: %s, want uuid-lua (worked out)", got)
	}
	if _, err := ParseLesson("m.lesson", lessonWith(t, "naive uuid-get-del\n", "naive uuid-get-del\nfix mylock\n")); err == nil ||
		!strings.Contains(err.Error(), `m.lesson:5:5: unknown implementation "mylock"`) {
		t.Errorf("a fix that is no implementation: %v", err)
	}
}

// A lesson's search follows from its timeline — the fault verbs it uses,
// work that outlasts the lease, its liveness bound as a multiple of the
// lease — and its explore line overrides that.
func TestLessonSearch(t *testing.T) {
	for id, want := range map[string]string{
		"get-then-del":    "{Faults:[expiry] Clients:3 Nodes:0 Attempts:6 Depth:12 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"gc-pause":        "{Faults:[expiry pause] Clients:2 Nodes:0 Attempts:6 Depth:12 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"setnx-no-ex":     "{Faults:[expiry crash] Clients:2 Nodes:0 Attempts:6 Depth:18 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"lease-too-short": "{Faults:[expiry hang] Clients:2 Nodes:0 Attempts:6 Depth:14 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"short-section":   "{Faults:[expiry] Clients:2 Nodes:0 Attempts:6 Depth:12 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"hung-holder":     "{Faults:[expiry hang] Clients:2 Nodes:0 Attempts:12 Depth:14 Liveness:2m30s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}",
		"reentrant-call":  "{Faults:[expiry] Clients:2 Nodes:0 Attempts:1 Depth:12 Liveness:10s Reenter:true Check:false Readers:0 Lease:0s Lacks:[]}",
		"read-write":      "{Faults:[expiry] Clients:3 Nodes:0 Attempts:6 Depth:12 Liveness:1m0s Reenter:false Check:false Readers:2 Lease:0s Lacks:[]}",
		"redlock-restart": "{Faults:[expiry restart] Clients:2 Nodes:0 Attempts:6 Depth:12 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:0s Lacks:[partition]}",
	} {
		s, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%+v", s.Search); got != want {
			t.Errorf("%s: search %s, want %s", id, got, want)
		}
	}
	s, err := ParseLesson("mine.lesson", lessonWith(t, "explore clients=3", "explore faults=expiry,crash attempts=2 depth=9 liveness=45s"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%+v", s.Search), "{Faults:[expiry crash] Clients:2 Nodes:0 Attempts:2 Depth:9 Liveness:45s Reenter:false Check:false Readers:0 Lease:0s Lacks:[]}"; got != want {
		t.Errorf("with an explore line: %s, want %s", got, want)
	}
	if got, want := s.Command("uuid-lua"), "lockstep explore --impl uuid-lua --clients 2 --attempts 2 --faults expiry,crash --depth 9 --liveness 45s --max-states 2500"; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	// A client's own lease: work that outlasts it asks for hang, and the
	// search's clients pass the same part of the explorer's lease (here
	// the same 4s of the same 30s).
	s, err = ParseLesson("mine.lesson", lessonWith(t, "client C start=2s retry=10s work=5s", "client C start=2s retry=10s work=5s lease=4s"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%+v", s.Search), "{Faults:[expiry hang] Clients:3 Nodes:0 Attempts:6 Depth:14 Liveness:1m0s Reenter:false Check:false Readers:0 Lease:4s Lacks:[]}"; got != want {
		t.Errorf("with a client's lease: %s, want %s", got, want)
	}
	// A client's own key: the explorer's clients take one lock.
	s, err = ParseLesson("mine.lesson", lessonWith(t, "client C start=2s retry=10s work=5s", "client C start=2s retry=10s work=5s key=lock:order:8801"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Search.Lacks; !slices.Equal(got, []string{"key"}) {
		t.Errorf("with a client's own key: lacks %v, want [key]", got)
	}
	if !s.Setup.ClientKeys {
		t.Error("with a client's own key: the setup does not say so (real servers would not refuse it)")
	}
	// nodes=5 is Redlock's: its searches run on five servers, a single
	// server's lock ignores it.
	s, err = ParseLesson("mine.lesson", lessonWith(t, "explore clients=3", "explore nodes=5"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Options("redlock").Nodes; got != 5 {
		t.Errorf("redlock's search on %d servers, want 5", got)
	}
	if got := s.Options("uuid-lua").Nodes; got != 0 {
		t.Errorf("uuid-lua's search with nodes %d, want none", got)
	}
	if got := s.Command("redlock"); !strings.Contains(got, " --nodes 5") {
		t.Errorf("command %q without --nodes 5", got)
	}
	if got := s.Command("uuid-lua"); strings.Contains(got, "--nodes") {
		t.Errorf("command %q with --nodes", got)
	}
}

// Issue #28 item 17: a hold that nothing lifts is an error at the hold, not
// a client silently stopped to the end; a crash lifts it (setnx-no-ex's A
// is held, then crashes).
func TestHoldNeverLifted(t *testing.T) {
	wantLessonError(t, lessonWith(t, "unhold A\n", ""), "25:1", `hold A is never lifted: want "unhold A" (or "crash A") before "run end"`)
	if _, err := ParseLesson("mine.lesson", lessonWith(t, "unhold A\n", "crash A\n")); err != nil {
		t.Errorf("a crash after the hold: %v", err)
	}
}
