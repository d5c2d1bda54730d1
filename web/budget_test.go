package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// The widest lesson the limits allow (testdata/widest.lesson: eight
// clients on nine servers, 19,880 of MaxLessonCommands' 20,000 commands
// reckoned) made a page of 180 MB, its two runs of 38,674 events each
// with nine servers in every snapshot, that took headless Chromium 78 s
// and 3.2 GB, and 179 s and 8.6 GB in compare mode (#37, item 3).

// wideRuns plays the widest lesson with its horizon cut to horizon (5m is
// the widest's) against redlock and against the lesson's fix, as play
// --format html does; once a test binary for each horizon.
func wideRuns(t *testing.T, horizon string) []*trace.Trace {
	t.Helper()
	wideMu.Lock()
	run, ok := wide[horizon]
	if !ok {
		run = sync.OnceValues(func() ([]*trace.Trace, error) { return playWide(horizon) })
		wide[horizon] = run
	}
	wideMu.Unlock()
	traces, err := run()
	if err != nil {
		t.Fatal(err)
	}
	return traces
}

var (
	wideMu sync.Mutex
	wide   = map[string]func() ([]*trace.Trace, error){}
)

func playWide(horizon string) ([]*trace.Trace, error) {
	src, err := os.ReadFile("testdata/widest.lesson")
	if err != nil {
		return nil, err
	}
	s, err := scenarios.ParseLesson("widest.lesson", []byte(strings.Replace(string(src), "horizon=5m", "horizon="+horizon, 1)))
	if err != nil {
		return nil, err
	}
	var out []*trace.Trace
	for _, name := range []string{"redlock", s.Fix("redlock")} {
		info, err := lockimpl.Lookup(name)
		if err != nil {
			return nil, err
		}
		tr, err := s.Run(info)
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// A twentieth of the widest lesson (a horizon of 15s: two runs of 1,982
// events) makes a page of at most 64 bytes an event (34), gzipped, its
// snapshots as changes; it reads back whole. Before, 9.3 MB: 2,334 bytes
// an event.
func TestWidePageIsSmall(t *testing.T) {
	traces := wideRuns(t, "15s")
	checkWidePage(t, traces, 64*(len(traces[0].Events)+len(traces[1].Events)))
}

// The widest lesson's page is under 2 MiB (1.6 MB). LOCKSTEP_LONG=1: the
// two runs take 15 s.
func TestLongWidestPageIsSmall(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("LOCKSTEP_LONG=1 plays the widest lesson (15 s)")
	}
	checkWidePage(t, wideRuns(t, "5m"), 2<<20)
}

func checkWidePage(t *testing.T, traces []*trace.Trace, most int) {
	t.Helper()
	events := len(traces[0].Events) + len(traces[1].Events)
	b := page(t, Player{Traces: traces, Lang: "en"})
	if len(b) > most {
		t.Errorf("the page of %d events is %d bytes (%d an event), want at most %d", events, len(b), len(b)/events, most)
	}
	got, order, err := EmbeddedTraces(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range traces {
		want, _ := json.Marshal(tr)
		if order[i] != tr.Impl || !bytes.Equal(got[tr.Impl], want) {
			t.Errorf("%s: the embedded trace does not read back as it was", tr.Impl)
		}
	}
}

// A page embeds at most MaxPageJSON bytes of traces: beyond, Write says
// how much it would have been, and writes nothing. (Within it, pages are
// written: TestLargePageIsGzipped.)
func TestPageBudget(t *testing.T) {
	tr := playRun(t, "get-then-del", "uuid-get-del")
	long := *tr
	long.Events = append([]trace.Event{}, tr.Events...)
	long.Events[1].Text.EN = strings.Repeat("x", MaxPageJSON)
	var b bytes.Buffer
	err := Player{Traces: []*trace.Trace{tr, &long}}.Write(&b)
	var big *TooLargeError
	if !errors.As(err, &big) || big.Bytes <= MaxPageJSON || big.Runs != 2 || big.Events != 2*len(tr.Events) || b.Len() != 0 {
		t.Fatalf("Write: %v, %d bytes written; want a TooLargeError of more than %d bytes and %d events, nothing written", err, b.Len(), MaxPageJSON, 2*len(tr.Events))
	}
	if !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("the error does not name the budget: %v", err)
	}
}

// A page whose traces' JSON passes a mebibyte embeds them gzipped, as a
// site's page does; a smaller one as JSON, as it is.
func TestLargePageIsGzipped(t *testing.T) {
	tr := playRun(t, "get-then-del", "uuid-get-del")
	small := page(t, Player{Traces: []*trace.Trace{tr}})
	long := *tr
	long.Events = append([]trace.Event{}, tr.Events...)
	long.Events[1].Text.EN = strings.Repeat("x", 1<<20)
	large := page(t, Player{Traces: []*trace.Trace{&long}})
	if !traceElement.Match(small) || bundle.Match(small) {
		t.Error("a small page does not embed its trace as JSON")
	}
	if traceElement.Match(large) || !bundle.Match(large) || len(large) > 1<<20 {
		t.Errorf("a page of a trace of more than 1 MiB is %d bytes, its trace not gzipped", len(large))
	}
}
