package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// Issue #29 item 11: Sentinel fails a dead primary over only once it has
// been unreachable for down-after, and a client's commands to it meanwhile
// fail. In every single-instance cell of a lesson with a failover, the
// promotion comes the lesson's down-after past the death, every command to
// the first node between the two fails, and the lesson's story says so in
// both languages, with the course's terms.
func TestFailoverWaitsForSentinel(t *testing.T) {
	lessons := map[string]sim.Setup{}
	for _, s := range All() {
		if !s.Setup.Replica || !strings.Contains(s.Story.EN+s.Summary.EN, "failover") {
			continue
		}
		lessons[s.ID] = s.Setup.WithDefaults()
		en, zh := s.Story.EN, s.Story.ZH
		if !strings.Contains(en, "down-after") || !strings.Contains(en, "Sentinel") {
			t.Errorf("%s: the English story does not say Sentinel waits down-after", s.ID)
		}
		if !strings.Contains(zh, "down-after") || !strings.Contains(zh, "哨兵") || !strings.Contains(zh, "主从切换") {
			t.Errorf("%s: the Chinese story does not say 哨兵 waits down-after before the 主从切换", s.ID)
		}
	}
	for _, id := range []string{"failover", "failover-wait", "guard-unique"} {
		if _, ok := lessons[id]; !ok {
			t.Errorf("%s: not found as a lesson with a replica and a failover", id)
		}
	}
	windows := 0
	for _, r := range sharedCheck(t) {
		setup, ok := lessons[r.Scenario]
		if in, err := lockimpl.Lookup(r.Impl); !ok || r.Trace == nil || err != nil || in.Nodes != 1 {
			continue
		}
		died, promoted := -1, -1
		for i, e := range r.Trace.Events {
			switch {
			case e.Kind == trace.KindFault && e.Short.EN == "DOWN" && died < 0:
				died = i
			case e.Kind == trace.KindFault && e.Short.EN == "promoted":
				promoted = i
			}
		}
		if died < 0 || promoted < 0 {
			t.Errorf("%s × %s: no death (%d) or no promotion (%d)", r.Scenario, r.Impl, died, promoted)
			continue
		}
		d, p := r.Trace.Events[died], r.Trace.Events[promoted]
		if p.T-d.T != setup.DownAfter {
			t.Errorf("%s × %s: promoted at %s, %s after the death; down-after is %s", r.Scenario, r.Impl, narrate.Secs(p.T), narrate.Secs(p.T-d.T), narrate.Secs(setup.DownAfter))
		}
		for _, e := range r.Trace.Events[died:promoted] {
			if e.Kind != trace.KindCommand {
				continue
			}
			if e.Server != d.Server || !strings.HasPrefix(e.Reply, "(error)") {
				t.Errorf("%s × %s, step %d: before Sentinel's promotion a command to the first node reaches %s: %s", r.Scenario, r.Impl, e.Step, e.Server, e.Reply)
			}
			if e.T > d.T {
				windows++
			}
		}
	}
	if windows == 0 {
		t.Error("no cell shows a command refused while Sentinel waits")
	}
}

// A lesson sets Sentinel's wait with down-after in its setup line; it is
// the replica's, so it needs replica.
func TestDownAfterInTheSetupLine(t *testing.T) {
	lesson := func(setup string) string {
		return "lesson mine\nnaive uuid-lua\ntitle\n    en t\n    zh 题\nsummary\n    en s\n    zh 要\n" +
			setup + "\nclient A\nfailover\nrun end\nexpect\n    uuid-lua -\nstory en\nA story.\n"
	}
	s, err := ParseLesson("mine.lesson", []byte(lesson("setup replica down-after=2.5s")))
	if err != nil {
		t.Fatal(err)
	}
	if s.Setup.DownAfter != 2500*time.Millisecond {
		t.Errorf("down-after=2.5s: DownAfter = %s", s.Setup.DownAfter)
	}
	for setup, want := range map[string]string{
		"setup down-after=1s":         "mine.lesson:9:7: down-after is the replica's: it needs replica too",
		"setup replica down-after=0s": "mine.lesson:9:15: down-after must be more than 0",
		"setup replica down-after=2h": "mine.lesson:9:15: down-after: 2h is longer than a lesson may run (1h)",
	} {
		if _, err := ParseLesson("mine.lesson", []byte(lesson(setup))); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", setup, err, want)
		}
	}
}
