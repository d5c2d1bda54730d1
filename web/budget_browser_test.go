package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/tui"
)

// A long run's page in Chromium (#37, item 3): the widest lesson's, two
// runs of 38,674 events, drew a row of 20 cells for each event and took
// 78 s and 3.2 GB, 179 s and 8.6 GB in compare mode, whose alignment
// filled a table of 1.5 billion scores. Its twentieth (a horizon of 15s,
// 1,982 events a run: 48,000 DOM nodes before, 7,600 now) runs by
// default, the widest with LOCKSTEP_LONG=1 (7,600 DOM nodes, a JS heap of
// 50 MiB).

func TestBrowserWidePage(t *testing.T) {
	browseWide(t, wideRuns(t, "15s"), 15_000, 32<<20)
}

func TestLongBrowserWidestPage(t *testing.T) {
	if os.Getenv("LOCKSTEP_LONG") != "1" {
		t.Skip("LOCKSTEP_LONG=1 plays the widest lesson and opens its page (40 s)")
	}
	browseWide(t, wideRuns(t, "5m"), 15_000, 128<<20)
}

// browseWide opens the page of a long run and its fix: it opens at its top
// with the first row current and at most maxNodes DOM nodes in the
// document; steps, jumps to the end and to a step the address names, each
// row in view; scrolls the timeline to places it has not drawn and finds
// their rows there; compares, in the TUI's rows; and the JS
// heap stays under maxHeap.
func browseWide(t *testing.T, traces []*trace.Trace, maxNodes, maxHeap int) {
	b := newBrowser(t)
	tr := traces[0]
	last := len(tr.Events) - 1
	file := writePage(t, t.TempDir(), "wide.html", Player{Traces: traces, Lang: "en"})
	b.open(file, "")
	check(t, b.view(), tr, 0, "en")
	b.metricsUnder("opened", maxNodes, maxHeap)

	b.keys("lll")
	check(t, b.view(), tr, 3, "en")
	b.keys("G")
	check(t, b.view(), tr, last, "en")
	b.currentRowInView("G, the last step")
	b.keys(kb.ArrowLeft)
	check(t, b.view(), tr, last-1, "en")
	b.currentRowInView("← from the last step")
	mid := len(tr.Events) / 2
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = "#step=%d"`, mid)))
	b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, mid))
	check(t, b.view(), tr, mid, "en")
	b.currentRowInView(fmt.Sprintf("#step=%d", mid))
	b.metricsUnder("stepped", maxNodes, maxHeap)

	for _, at := range []float64{0.25, 0.9, 1, 0, 0.6} {
		b.scrollTimeline(at, len(tr.Events))
	}
	// A click on a row the scroll drew goes there.
	step, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`(() => {
  const box = document.getElementById("timeline-box").getBoundingClientRect();
  const row = [...document.querySelectorAll("#timeline tr[data-step]")].find((r) => r.getBoundingClientRect().top > box.top + 60);
  row.querySelector("td").click();
  return Number(row.dataset.step);
})()`))
	if err != nil {
		t.Fatal(err)
	}
	check(t, b.view(), tr, step, "en")

	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "true"`)
	b.currentRowInView("c, compare mode")
	b.sameRowsAsTheTUI(traces[0], traces[1])
	b.keys("G")
	b.currentRowInView("G in compare mode")
	b.sameRowsAsTheTUI(traces[0], traces[1])
	b.metricsUnder("compared", maxNodes, maxHeap)
	b.noConsoleErrors()
}

// metricsUnder fails the test when the page has more DOM nodes or a larger
// JS heap (used, after a garbage collection) than given.
func (b *browser) metricsUnder(when string, maxNodes, maxHeap int) {
	b.t.Helper()
	m, err := chromedp.Run(b.ctx, func(ctx context.Context, tg *chromedp.Target) (map[string]float64, error) {
		if _, err := cdp.Call(ctx, tg, performance.Enable, performance.EnableParams{}); err != nil {
			return nil, err
		}
		if _, err := cdp.Call(ctx, tg, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
			return nil, err
		}
		res, err := cdp.Call(ctx, tg, performance.GetMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		out := map[string]float64{}
		for _, m := range res.Metrics {
			out[m.Name] = m.Value
		}
		return out, nil
	})
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("%s: %.0f DOM nodes, JS heap %.1f MiB used of %.1f MiB", when, m["Nodes"], m["JSHeapUsedSize"]/(1<<20), m["JSHeapTotalSize"]/(1<<20))
	if m["Nodes"] > float64(maxNodes) {
		b.t.Errorf("%s: the page has %.0f DOM nodes, want at most %d", when, m["Nodes"], maxNodes)
	}
	if m["JSHeapUsedSize"] > float64(maxHeap) {
		b.t.Errorf("%s: the JS heap is %.1f MiB, want at most %d MiB", when, m["JSHeapUsedSize"]/(1<<20), maxHeap>>20)
	}
}

// scrollTimeline scrolls the timeline's scroller to a fraction of its
// range, as a reader dragging its bar would, and waits until the rows
// drawn fill what it shows: the rows there, in order, and around the
// place of the whole timeline that fraction is.
func (b *browser) scrollTimeline(at float64, events int) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const box = document.getElementById("timeline-box");
  box.scrollTop = %g * (box.scrollHeight - box.clientHeight);
})()`, at)))
	b.wait(`(() => {
  const box = document.getElementById("timeline-box").getBoundingClientRect();
  const head = document.querySelector("#timeline th").getBoundingClientRect().bottom;
  const seen = (r) => { const x = r.getBoundingClientRect(); return x.bottom > head + 1 && x.top < box.bottom - 1; };
  return ![...document.querySelectorAll("#timeline tr.gap")].some(seen);
})()`)
	shown, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]int](`(() => {
  const box = document.getElementById("timeline-box").getBoundingClientRect();
  const head = document.querySelector("#timeline th").getBoundingClientRect().bottom;
  return [...document.querySelectorAll("#timeline tr[data-step]")].filter((r) => {
    const x = r.getBoundingClientRect(); return x.bottom > head + 1 && x.top < box.bottom - 1;
  }).map((r) => Number(r.dataset.step));
})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	where := fmt.Sprintf("the timeline scrolled to %g of its range", at)
	if len(shown) < 5 {
		b.t.Fatalf("%s shows the rows %v", where, shown)
	}
	for i := 1; i < len(shown); i++ {
		if shown[i] != shown[i-1]+1 {
			b.t.Fatalf("%s shows the rows %v, not in order", where, shown)
		}
	}
	// The rows drawn stand in for rows of about one height, so a place
	// of the range is about that place of the timeline.
	if want := at * float64(events); float64(shown[0]) < want-0.1*float64(events) || float64(shown[len(shown)-1]) > want+0.1*float64(events) {
		b.t.Errorf("%s shows the rows %d to %d, want about %.0f", where, shown[0], shown[len(shown)-1], want)
	}
}

// sameRowsAsTheTUI checks the compare timeline's drawn rows, and the rows
// its gaps stand for, against the TUI's alignment of the two traces.
func (b *browser) sameRowsAsTheTUI(l, r *trace.Trace) {
	b.t.Helper()
	type row struct {
		Row, L, R     int
		Same, Diverge bool
	}
	type drawn struct {
		Rows   []row `json:"rows"`
		Before int   `json:"before"`
		After  int   `json:"after"`
	}
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[drawn](`(() => {
  const gaps = [...document.querySelectorAll("#timeline tr.gap")];
  const rows = [...document.querySelectorAll("#timeline tr[data-row]")].map((t) => ({ Row: Number(t.dataset.row),
    L: Number(t.dataset.l), R: Number(t.dataset.r), Same: t.classList.contains("same"), Diverge: t.classList.contains("diverge") }));
  const first = rows.length ? document.querySelector("#timeline tr[data-row]") : null;
  const before = gaps.filter((g) => first && g.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING);
  const count = (gs) => gs.reduce((n, g) => n + Number(g.dataset.rows), 0);
  return { rows, before: count(before), after: count(gaps) - count(before) };
})()`))
	if err != nil {
		b.t.Fatal(err)
	}
	want, diverge := tui.Align(l, r)
	where := fmt.Sprintf("%s vs %s", l.Impl, r.Impl)
	if n := got.Before + len(got.Rows) + got.After; n != len(want) || len(got.Rows) == 0 || got.Rows[0].Row != got.Before {
		b.t.Fatalf("%s: the timeline has %d rows (%d drawn from row %d), the TUI's %d", where, n, len(got.Rows), got.Before, len(want))
	}
	for _, g := range got.Rows {
		w := want[g.Row]
		if g.L != w.L || g.R != w.R || g.Same != w.Same || g.Diverge != (g.Row == diverge) {
			b.t.Fatalf("%s: row %d pairs %d with %d (same %v, divergence %v), the TUI's %d with %d (same %v, divergence at %d)",
				where, g.Row, g.L, g.R, g.Same, g.Diverge, w.L, w.R, w.Same, diverge)
		}
	}
}

// Compare mode pairs the events the TUI pairs, for a few lessons' naive
// implementation beside its fix and the other way round: a table of
// scores for each instant gives the alignment that one table for every
// pair of events gives. (TestBrowserWidePage checks a timeline longer
// than the player draws at once.)
func TestBrowserCompareAsTheTUI(t *testing.T) {
	b := newBrowser(t)
	dir, results := writeSite(t)
	for _, lesson := range []string{"get-then-del", "failover", "retries", "redlock-slow-node"} {
		s, err := scenarios.Lookup(lesson)
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2]string{{s.Naive, s.Fix(s.Naive)}, {s.Fix(s.Naive), s.Naive}} {
			l, r := resultTrace(results, lesson, pair[0]), resultTrace(results, lesson, pair[1])
			if l == nil || r == nil {
				t.Fatalf("%s: no run of %v on the site", lesson, pair)
			}
			b.open(filepath.Join(dir, lesson+".html"), fmt.Sprintf("impl=%s&vs=%s&row=0", pair[0], pair[1]))
			b.sameRowsAsTheTUI(l, r)
			b.keys("G")
			b.sameRowsAsTheTUI(l, r)
		}
	}
	b.noConsoleErrors()
}

// Two runs whose instants would need more than a table of 2²⁶ scores
// (8,200 events at one instant in each: 67 million) are not compared, and
// the page says so; it stays on the run.
func TestBrowserCompareTooManyAtOnce(t *testing.T) {
	b := newBrowser(t)
	tr := playRun(t, "get-then-del", "uuid-get-del")
	crowd := func(impl string) *trace.Trace {
		c := *tr
		c.Impl = impl
		c.Events = make([]trace.Event, 8200)
		for i := range c.Events {
			c.Events[i] = tr.Events[2]
			c.Events[i].Step, c.Events[i].T = i, 0
		}
		c.Verdicts = nil
		for _, v := range tr.Verdicts {
			c.Verdicts = append(c.Verdicts, trace.Verdict{Invariant: v.Invariant})
		}
		return &c
	}
	file := writePage(t, t.TempDir(), "crowd.html", Player{Traces: []*trace.Trace{crowd("uuid-get-del"), crowd("uuid-lua")}, Lang: "en"})
	b.open(file, "step=5")
	b.keys("c")
	b.wait(`document.getElementById("flash").textContent !== ""`)
	v := b.view()
	flash, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("flash").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Compare || v.Step != 5 || !strings.Contains(flash, "too many events at the same moments") {
		t.Errorf("c: compare %v at step %d, flash %q; want step 5 of the run and the page saying why", v.Compare, v.Step, flash)
	}
	b.noConsoleErrors()
}
