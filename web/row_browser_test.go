package web

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// rowBox is where the timeline's current row is, in the viewport's
// pixels, beside what bounds it: the viewport, and the part of the
// timeline's scroller below its sticky header.
type rowBox struct {
	Found    bool    `json:"found"`
	Top      float64 `json:"top"`
	Bottom   float64 `json:"bottom"`
	Viewport float64 `json:"viewport"`
	BoxTop   float64 `json:"boxTop"`
	BoxBot   float64 `json:"boxBottom"`
}

func (r rowBox) inView() bool {
	// A pixel: the rows' heights are fractions of one and a scroller's
	// range is whole pixels, so at its end the last row can reach past it
	// by less than one.
	const slack = 1
	return r.Found && r.Top >= max(0, r.BoxTop)-slack && r.Bottom <= min(r.Viewport, r.BoxBot)+slack
}

func (r rowBox) String() string {
	if !r.Found {
		return "no current row"
	}
	return fmt.Sprintf("the row spans y=%.1f..%.1f; the viewport is 0..%.1f, the timeline shows y=%.1f..%.1f below its header",
		r.Top, r.Bottom, r.Viewport, r.BoxTop, r.BoxBot)
}

const readRowBox = `(() => {
  const row = document.querySelector("#timeline tr.current");
  if (!row) return { found: false };
  const box = document.getElementById("timeline-box"), head = document.querySelector("#timeline thead");
  const r = row.getBoundingClientRect(), b = box.getBoundingClientRect();
  const top = b.top + box.clientTop;
  return { found: true, top: r.top, bottom: r.bottom, viewport: document.documentElement.clientHeight,
    boxTop: head ? Math.max(top, head.getBoundingClientRect().bottom) : top, boxBottom: top + box.clientHeight };
})()`

// currentRowInView waits, up to a bound, for the current row to be in
// view, and says where it is if it is not.
func (b *browser) currentRowInView(where string) bool {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](
		`(() => { const r = `+readRowBox+`; return r.found && r.top >= Math.max(0, r.boxTop) - 1 && r.bottom <= Math.min(r.viewport, r.boxBottom) + 1; })()`,
		chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(2*time.Second)))
	if err == nil {
		return true
	}
	raw, err2 := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](readRowBox))
	var r rowBox
	if err2 != nil || json.Unmarshal(raw, &r) != nil {
		b.t.Errorf("%s: the current row is not in view (%v, %v)", where, err, err2)
		return false
	}
	if r.inView() {
		return true
	}
	b.t.Errorf("%s: the current row is not in view: %s", where, r)
	return false
}

// The current row is always in view (#37, item 12): stepping down and up
// the timeline at 1280×800, where the timeline's scroller reaches below
// the fold; after c (compare mode) at step 36 of get-then-del, which left
// the row at y=809; and opened at #step=33 on a phone, which left it at
// y=1065. Neither the page's end nor the timeline's sticky header may hide
// it.
func TestBrowserCurrentRowInView(t *testing.T) {
	b := newBrowser(t)
	dir, shots := t.TempDir(), artefacts(t)
	tr, fix := playRun(t, "get-then-del", "uuid-get-del"), playRun(t, "get-then-del", "uuid-lua")
	file := writePage(t, dir, "get-then-del.html", Player{Traces: []*trace.Trace{tr, fix}, Lang: "en"})

	// Each way, the first step whose row is out of view is said.
	b.open(file, "step=0")
	ok := true
	for i := 1; i < len(tr.Events); i++ {
		b.keys(kb.ArrowRight)
		b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, i))
		ok = ok && b.currentRowInView(fmt.Sprintf("1280×800, → to step %d", i))
	}
	ok = true
	for i := len(tr.Events) - 2; i >= 0; i-- {
		b.keys(kb.ArrowLeft)
		b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, i))
		ok = ok && b.currentRowInView(fmt.Sprintf("1280×800, ← to step %d", i))
	}

	b.do(chromedp.Evaluate[chromedp.Void](`location.hash = "#step=36"`))
	b.wait(`document.getElementById("player").dataset.step === "36"`)
	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "true"`)
	ok = b.currentRowInView("1280×800, c at step 36")
	b.screenshot(shots, "player-compare-36-1280x800.png", 1280, 800)
	for n := 0; n < 5; n++ {
		b.keys("l")
		ok = ok && b.currentRowInView(fmt.Sprintf("1280×800, compare mode, → %d times after c", n+1))
	}

	// Opened afresh: a page of another name, not the same one's address
	// changed.
	b.do(chromedp.EmulateViewport(375, 667))
	b.open(writePage(t, dir, "phone.html", Player{Traces: []*trace.Trace{tr, fix}, Lang: "en"}), "step=33")
	b.currentRowInView("375×667, opened at #step=33")
	b.screenshot(shots, "player-step-33-375x667.png", 375, 667)
	b.open(writePage(t, dir, "phone-zh.html", Player{Traces: []*trace.Trace{tr, fix}, Lang: "en"}), "lang=zh&step=40")
	b.currentRowInView("375×667, opened at #lang=zh&step=40")
	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "true"`)
	b.currentRowInView("375×667, c at step 40")
	b.noConsoleErrors()
}
