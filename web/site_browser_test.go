package web

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/chromedp/chromedp"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// siteImpls are the implementations the browser's site holds, to keep the
// test short: every lesson's naive one and its fix
// (internal/cli/site_test.go checks the whole site's files).
func siteImpls() []lockimpl.Info {
	var out []lockimpl.Info
	for _, in := range lockimpl.All() {
		for _, s := range scenarios.All() {
			if in.Name == s.Naive || in.Name == s.Fix(s.Naive) {
				out = append(out, in)
				break
			}
		}
	}
	return out
}

// siteResults are the site's cells, run once for the tests that write it.
var siteResults = sync.OnceValues(func() ([]scenarios.Result, error) {
	return scenarios.CheckCellsOn(context.Background(), nil, scenarios.All(), siteImpls(), runtime.GOMAXPROCS(0))
})

// writeSite writes the course into a directory: every lesson, some
// implementations.
func writeSite(t *testing.T) (string, []scenarios.Result) {
	t.Helper()
	results, err := siteResults()
	if err != nil {
		t.Fatal(err)
	}
	en, err := os.ReadFile("../docs/self-check.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := Site{Results: results, Lang: "en", SelfCheck: string(en)}.Pages()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, results
}

func resultTrace(results []scenarios.Result, lesson, impl string) *trace.Trace {
	for _, r := range results {
		if r.Scenario == lesson && r.Impl == impl {
			return r.Trace
		}
	}
	return nil
}

// The site in Chromium: the index lists every lesson, in both languages;
// a lesson's page inflates its runs, switches implementation with i at the
// same moment, compares; the self-check links the lessons.
func TestBrowserSite(t *testing.T) {
	b := newBrowser(t)
	shots := artefacts(t)
	dir, results := writeSite(t)

	b.open(filepath.Join(dir, "index.html"), "")
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("tr[data-lesson]")].map((r) => r.dataset.lesson + " " + r.querySelector("a").getAttribute("href"))`))
	if err != nil {
		t.Fatal(err)
	}
	lessons := scenarios.All()
	if len(rows) != len(lessons) {
		t.Errorf("the index lists %d lessons, want %d", len(rows), len(lessons))
	}
	for i, l := range lessons {
		if i < len(rows) && rows[i] != l.ID+" "+l.ID+".html" {
			t.Errorf("row %d: %q, want %s linking %s.html", i, rows[i], l.ID, l.ID)
		}
	}
	b.screenshot(shots, "site-index-1280x800.png", 1280, 800)
	b.keys("L")
	title, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("tr[data-lesson] td:nth-child(2)").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, lessons[0].Title.ZH) || strings.Contains(title, lessons[0].Title.EN) {
		t.Errorf("in Chinese the first lesson reads %q", title)
	}
	b.keys("L")

	lessonPage(t, b, dir, results)

	b.open(filepath.Join(dir, "self-check.html"), "")
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('div[lang="en"] a[href="get-then-del.html"]').length`))
	if err != nil || n == 0 {
		t.Errorf("the self-check does not link get-then-del.html (%v)", err)
	}
	b.noConsoleErrors()
}

// lessonPage: get-then-del opens on the implementation it is about; i
// switches to the next at the same moment of the timeline; c and d
// compare.
func lessonPage(t *testing.T, b *browser, dir string, results []scenarios.Result) {
	t.Helper()
	s, _ := scenarios.Lookup("get-then-del")
	tr := resultTrace(results, s.ID, s.Naive)
	own := firstBroken(tr, invariant.Ownership)
	b.open(filepath.Join(dir, "get-then-del.html"), "step=33")
	check(t, b.view(), tr, own, "en")
	options, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.getElementById("impl").options.length`))
	if err != nil || options != len(siteImpls()) {
		t.Errorf("the page offers %d implementations, want %d (%v)", options, len(siteImpls()), err)
	}
	b.keys("i")
	b.wait(`document.getElementById("player").dataset.impl !== "` + s.Naive + `"`)
	v := b.view()
	impl, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("player").dataset.impl`))
	if err != nil {
		t.Fatal(err)
	}
	next := resultTrace(results, s.ID, impl)
	if next == nil || next.Events[v.Step].T != tr.Events[own].T {
		t.Fatalf("i: %s at step %d, not at t=%s", impl, v.Step, tr.Events[own].T)
	}
	check(t, v, next, v.Step, "en")
	if !strings.Contains(v.Hash, "impl="+impl) {
		t.Errorf("the address %q does not name %s", v.Hash, impl)
	}
	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "true"`)
	b.keys("d")
	if v := b.view(); v.Sep != "≠" {
		t.Errorf("d in compare mode: the row's separator is %q", v.Sep)
	}
}
