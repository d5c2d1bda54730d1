package lockimpl_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/locktest"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The two libraries are judged by what the engine observes, like any lock.
// Each breaks exactly what its catalogue counterpart breaks, in every lesson
// and in the bounded search: redislock and redsync on one server are
// uuid-lua (a token, a lease, an atomic release, nothing more); redsync on
// five is Redlock.
var counterpart = map[string]string{
	"redislock":       "uuid-lua",
	"redsync":         "uuid-lua",
	"redsync-redlock": "redlock",
}

// long says whether the long tests run: LOCKSTEP_LONG=1, which .ci/run sets.
func long() bool { return os.Getenv("LOCKSTEP_LONG") == "1" }

func problems(t *testing.T, name string, search bool) []string {
	t.Helper()
	in, err := lockimpl.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	opts := []locktest.Option{locktest.TraceDir(t.TempDir())}
	if !search {
		opts = append(opts, locktest.NoSearch())
	} else {
		// A search locktest stops at its 20 s bound is a problem of its
		// own (locktest.Unfinished), and where it stopped depends on the
		// machine: redsync on five servers takes about 20 s. These
		// searches compare findings, so they get the time to finish.
		opts = append(opts, locktest.SearchTimeout(5*time.Minute))
	}
	ps, err := locktest.Check(in, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s step %d", p.Lesson, p.Invariant, p.Step))
	}
	slices.Sort(out)
	return out
}

func TestLibrariesBreakWhatTheirCounterpartsBreak(t *testing.T) {
	for lib, twin := range counterpart {
		t.Run(lib, func(t *testing.T) {
			// redsync on five servers sends five times the moves: its search
			// takes about 20 s, and runs with the long tests.
			search := lib != "redsync-redlock" || long()
			got, want := problems(t, lib, search), problems(t, twin, search)
			strip := func(ps []string) []string {
				// Steps differ (a library sends other commands); the lesson
				// and the invariant must not.
				var out []string
				for _, p := range ps {
					out = append(out, p[:strings.LastIndex(p, " step ")])
				}
				return out
			}
			if !slices.Equal(strip(got), strip(want)) {
				t.Errorf("%s broke:\n  %s\n%s broke:\n  %s", lib, strings.Join(got, "\n  "), twin, strings.Join(want, "\n  "))
			}
			if len(got) == 0 {
				t.Error("no lesson broke anything: the lessons did not run")
			}
		})
	}
}

// Every lesson, twenty times, for each library, and its search twice: no
// panic, no error, and the same trace byte for byte, the same findings,
// each time. Long: it runs in CI.
func TestLongLibrariesTwentyTimes(t *testing.T) {
	if !long() {
		t.Skip("LOCKSTEP_LONG=1 runs it (.ci/run does)")
	}
	for lib := range counterpart {
		in, _ := lockimpl.Lookup(lib)
		var first []string
		for i := range 20 {
			results, err := scenarios.CheckCells(scenarios.All(), []lockimpl.Info{in})
			if err != nil {
				t.Fatalf("%s, run %d: %v", lib, i, err)
			}
			for j, r := range results {
				if r.Error != "" || !r.Pass {
					t.Fatalf("%s × %s, run %d: error %q, broken %v, expected %v", r.Scenario, lib, i, r.Error, r.Broken, r.Expected)
				}
				b, err := json.Marshal(r.Trace)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = append(first, string(b))
				} else if string(b) != first[j] {
					t.Fatalf("%s × %s: run %d gave another trace than run 0", r.Scenario, lib, i)
				}
			}
		}
		runs := 2 // redsync-redlock's takes about 20 s
		want := problems(t, lib, true)
		for range runs - 1 {
			if got := problems(t, lib, true); !slices.Equal(got, want) {
				t.Fatalf("%s: the search found\n  %s\nthen\n  %s", lib, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		}
	}
}
