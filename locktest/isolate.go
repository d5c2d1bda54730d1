package locktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// This file is Run's isolation: the lessons and the search run in a child
// process of the test binary, one unit (a lesson, or the search) after
// another, each reported to a file before it starts and when it ends. A
// child that dies in a unit — a panic in a goroutine the lock started
// itself, which Go cannot recover — leaves that unit started and not
// ended: the parent makes it the unit's error and starts another child for
// the units still to run.

// childEnv carries a child's spec (childRun, as JSON).
const childEnv = "LOCKSTEP_LOCKTEST_CHILD"

// childRun tells a child where to report, which call of Run in the test is
// its own, and which units to skip (done by an earlier child).
type childRun struct {
	Out  string   `json:"out"`
	Call int      `json:"call"`
	Skip []string `json:"skip,omitempty"`
	// Serial runs one lesson at a time: after a child died with several
	// lessons under way, so that the next death names its lesson.
	Serial bool `json:"serial,omitempty"`
}

// unitReport is one line of a child's report: a unit started, or ended
// with its problems and errors.
type unitReport struct {
	Unit string `json:"unit"`
	Done bool   `json:"done,omitempty"`
	Report
}

// calls counts the calls of Run in each run of a test (-count runs it
// again, with a new T), so that a child does the work of the one call that
// started it.
var calls struct {
	sync.Mutex
	n map[testing.TB]int
}

func nextCall(t testing.TB) int {
	calls.Lock()
	defer calls.Unlock()
	if calls.n == nil {
		calls.n = map[testing.TB]int{}
	}
	calls.n[t]++
	return calls.n[t]
}

func childSpec() (childRun, bool) {
	v := os.Getenv(childEnv)
	if v == "" {
		return childRun{}, false
	}
	var spec childRun
	return spec, json.Unmarshal([]byte(v), &spec) == nil
}

// runPattern is -test.run's pattern for exactly the test named name
// (subtests included: each level anchored on its own).
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// isolated runs the units in children until one gets to the end, and
// gathers their reports, in the order the units come in the lessons.
func isolated(t *testing.T, info lockimpl.Info) (Report, error) {
	spec := childRun{Call: nextCall(t)}
	dir := t.TempDir()
	var units []string // in the order the children started them
	done := map[string]unitReport{}
	for n := 0; ; n++ {
		spec.Out = filepath.Join(dir, fmt.Sprintf("child-%d.jsonl", n))
		env, _ := json.Marshal(spec)
		cmd := exec.Command(os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v=false")
		cmd.Env = append(os.Environ(), childEnv+"="+string(env))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		runErr := cmd.Run()
		reports, err := readReports(spec.Out)
		if err != nil {
			return Report{}, fmt.Errorf("locktest: the child process's report: %w", err)
		}
		var started []string // under way when the child ended
		for _, r := range reports {
			if !r.Done {
				started = append(started, r.Unit)
				if !slices.Contains(units, r.Unit) {
					units = append(units, r.Unit)
				}
				continue
			}
			started = slices.DeleteFunc(started, func(u string) bool { return u == r.Unit })
			spec.Skip = append(spec.Skip, r.Unit)
			done[r.Unit] = r
		}
		switch {
		case runErr == nil && len(done) == 0:
			return Report{}, fmt.Errorf("locktest: the child process ran none of %s's lessons: its test did not call Run as this one did (call %d); keep a test that calls locktest.Run to its calls of Run", info.Name, spec.Call)
		case runErr == nil:
			return gather(units, done)
		case len(started) == 0:
			return Report{}, fmt.Errorf("locktest: the child process running %s's lessons failed outside them: %v\n%s", info.Name, runErr, tail(out.String(), 20))
		case len(started) > 1 && !spec.Serial:
			// Several lessons were under way: one at a time from here,
			// so that the next death names its lesson.
			spec.Serial = true
			continue
		}
		unit := started[0]
		what := unit + " × " + info.Name
		if unit == Explored {
			what = "the search"
		}
		spec.Skip = append(spec.Skip, unit)
		done[unit] = unitReport{Unit: unit, Done: true, Report: Report{Errors: []string{fmt.Sprintf(
			"%s could not run: the process died in it (%v), as it does when a goroutine the lock started itself panics (one started with Env.Go is a lesson's error without that): %s",
			what, runErr, crash(out.String()))}}}
	}
}

// gather puts the units' reports together in order.
func gather(units []string, done map[string]unitReport) (Report, error) {
	var rep Report
	for _, u := range units {
		rep.add(done[u].Report)
	}
	if r, ok := done["lockimpl.Info"]; ok {
		rep.Errors = append(rep.Errors, r.Errors...)
	}
	return rep, nil
}

func readReports(path string) ([]unitReport, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []unitReport
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r unitReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			break // a line the child did not finish writing
		}
		out = append(out, r)
	}
	return out, nil
}

// crash is the panic a dead child printed, with the frames below it.
func crash(out string) string {
	i := strings.Index(out, "panic: ")
	if j := strings.Index(out, "fatal error: "); i < 0 || j >= 0 && j < i {
		i = j
	}
	if i < 0 {
		return tail(out, 12)
	}
	lines := strings.Split(out[i:], "\n")
	return strings.Join(lines[:min(12, len(lines))], "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// runChild is Run in a child: the one call of Run the parent asked for
// runs its units, reporting each; the others do nothing.
func runChild(t testing.TB, spec childRun, info lockimpl.Info, opts []Option) {
	if nextCall(t) != spec.Call {
		return
	}
	f, err := os.OpenFile(spec.Out, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	report := func(r unitReport) {
		line, _ := json.Marshal(r)
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Error(err)
		}
	}
	c := newConfig(opts)
	if err := checkInfo(info); err != nil {
		report(unitReport{Unit: "lockimpl.Info", Done: true, Report: Report{Errors: []string{err.Error()}}})
		return
	}
	// The lessons side by side, as Check runs them (real servers: mostly
	// waiting for leases; embedded ones: all at once, so that stalls
	// overlap), each reported on its own.
	parallel := max(runtime.GOMAXPROCS(0), len(c.lessonList()))
	if c.redis != "" {
		parallel = realParallel
	}
	if spec.Serial {
		parallel = 1
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, s := range c.lessonList() {
		if slices.Contains(spec.Skip, s.ID) {
			continue
		}
		slots <- struct{}{}
		report(unitReport{Unit: s.ID})
		wg.Go(func() {
			defer func() { <-slots }()
			r, err := c.checkLessons(info, []scenarios.Scenario{s})
			if err != nil {
				r.Errors = append(r.Errors, err.Error())
			}
			report(unitReport{Unit: s.ID, Done: true, Report: r})
		})
	}
	wg.Wait()
	if c.search && !slices.Contains(spec.Skip, Explored) {
		report(unitReport{Unit: Explored})
		report(unitReport{Unit: Explored, Done: true, Report: c.checkSearch(info)})
	}
}
