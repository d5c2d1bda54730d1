package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lockstep-sim/lockstep/tui"
)

// The player page in a real browser: headless Chromium, driven through the
// DevTools protocol. The page's step, lanes, narration and invariants must
// be what the trace (play --format json) says at that step, the lanes as
// the TUI draws them. They run with LOCKSTEP_BROWSER=1.

// chromium is the browser to drive: $LOCKSTEP_CHROMIUM, else the usual
// names on PATH. The browser tests take half a minute: they run with
// LOCKSTEP_BROWSER=1 (.ci/run sets it), and fail then without a Chromium.
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("LOCKSTEP_BROWSER") != "1" {
		t.Skip("skipped: the player page's browser tests run with LOCKSTEP_BROWSER=1 (and Chromium: apt-get install chromium, or LOCKSTEP_CHROMIUM)")
	}
	if p := os.Getenv("LOCKSTEP_CHROMIUM"); p != "" {
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
		t.Fatalf("LOCKSTEP_CHROMIUM=%s: no such program", p)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("LOCKSTEP_BROWSER=1, and no Chromium on PATH (apt-get install chromium, or set LOCKSTEP_CHROMIUM)")
	return ""
}

// artefacts is where the screenshots go: $LOCKSTEP_ARTEFACTS (CI keeps
// it), else a temporary directory.
func artefacts(t *testing.T) string {
	dir := os.Getenv("LOCKSTEP_ARTEFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser is one headless Chromium with one tab, and what its console said.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu      sync.Mutex
	console []string
}

func newBrowser(t *testing.T) *browser {
	path := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.Flag("disable-gpu", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	// A bound on a stuck browser, not a measure of speed.
	ctx, cancelTime := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || m.Type == chromedp.ConsoleWarning {
				b.mu.Lock()
				b.console = append(b.console, m.String())
				b.mu.Unlock()
			}
		}
	}()
	b.do(chromedp.EmulateViewport(1280, 800))
	return b
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// noConsoleErrors fails the test for every error, warning or exception the
// page wrote.
func (b *browser) noConsoleErrors() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		b.t.Errorf("console: %s", m)
	}
}

// open loads a page and waits for its player.
func (b *browser) open(file, hash string) {
	b.t.Helper()
	u := url.URL{Scheme: "file", Path: file, Fragment: hash}
	b.do(chromedp.Navigate(u.String()))
	b.wait(`document.body.dataset.ready === "true"`)
}

// wait waits until the expression is true in the page. A poll begun in
// the document a navigation is replacing loses its execution context
// ("Cannot find context with specified id", seen once in CI on a loaded
// machine): it polls again, in the new document.
func (b *browser) wait(expr string) {
	b.t.Helper()
	var err error
	for range 3 {
		_, err = chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](expr,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") {
			break
		}
	}
	if err != nil {
		b.t.Fatalf("waiting for %s: %v", expr, err)
	}
}

func (b *browser) keys(keys string) {
	b.t.Helper()
	b.do(chromedp.KeyEvent(keys))
}

func (b *browser) screenshot(dir, name string, w, h int64) {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(w, h))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// view is what the page shows: read from its elements, not its script's
// state.
type view struct {
	Step       int               `json:"step"`
	Row        int               `json:"row"`
	Compare    bool              `json:"compare"`
	Hash       string            `json:"hash"`
	Status     string            `json:"status"`
	Narration  string            `json:"narration"`
	Command    string            `json:"command"`
	Lanes      map[string]string `json:"lanes"`
	RowSay     string            `json:"rowSay"`
	RowClass   string            `json:"rowClass"`
	Sep        string            `json:"sep"`
	Invariants []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Mark string `json:"mark"`
	} `json:"invariants"`
	Lang     string `json:"lang"`
	Overflow bool   `json:"overflow"`
}

// readView reads the page's text with the symbols it draws (data-sym, as
// ⏸) read as the characters they stand for.
const readView = `(() => {
  const said = (e) => {
    if (!e) return "";
    const c = e.cloneNode(true);
    c.querySelectorAll("[data-sym]").forEach((i) => i.replaceWith(i.dataset.sym));
    return c.textContent;
  };
  const main = document.getElementById("player");
  const cur = document.querySelector("#timeline tr.current");
  const lanes = {};
  if (cur) cur.querySelectorAll("td[data-lane]").forEach((td) => { lanes[td.dataset.lane] = said(td); });
  const text = (sel) => said(cur && cur.querySelector(sel));
  return {
    step: Number(main.dataset.step), row: Number(main.dataset.row), compare: main.dataset.compare === "true",
    hash: location.hash, status: said(document.getElementById("status")),
    narration: said(document.getElementById("narration")),
    command: said(document.getElementById("command")),
    lanes, rowSay: text("td.say"), rowClass: cur ? cur.className : "", sep: text("td.sep"),
    invariants: [...document.querySelectorAll("#invariants .inv")].map((p) => ({
      id: p.dataset.invariant, name: said(p.querySelector(".name")), mark: said(p.querySelector(".mark")) })),
    lang: document.documentElement.lang,
    overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth,
  };
})()`

func (b *browser) view() view {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[view](readView))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// check compares what the page shows with what the trace says at step i.
func check(t *testing.T, v view, tr *trace.Trace, i int, lang string) {
	t.Helper()
	where := fmt.Sprintf("%s × %s step %d (%s)", tr.Scenario, tr.Impl, i, lang)
	if v.Step != i {
		t.Fatalf("%s: the page is at step %d", where, v.Step)
	}
	e := tr.Events[i]
	say := e.Text.In(lang)
	if e.Kind == trace.KindViolation {
		say = "✗ " + say
	}
	if v.Narration != say {
		t.Errorf("%s: narration %q, want %q", where, v.Narration, say)
	}
	if want := fmt.Sprintf(map[string]string{"en": "step %d/%d", "zh": "第 %d/%d 步"}[lang], i, len(tr.Events)-1); !strings.Contains(v.Status, want) {
		t.Errorf("%s: status %q lacks %q", where, v.Status, want)
	}
	// The reply as the Go front ends say it in lang: lockstep's own errors
	// in Chinese on a Chinese page (issue #41).
	if line := e.Server + "> " + e.Command + " → " + e.ReplyIn(lang); e.Kind == trace.KindCommand && !strings.Contains(v.Command, line) {
		t.Errorf("%s: command line %q lacks %q", where, v.Command, line)
	}
	checkLanes(t, where, v, tr, i, lang)
	checkInvariants(t, where, v, tr, i, lang)
}

func checkLanes(t *testing.T, where string, v view, tr *trace.Trace, i int, lang string) {
	t.Helper()
	e := tr.Events[i]
	if e.Kind == trace.KindNarration || e.Kind == trace.KindViolation {
		mark := map[trace.Kind]string{trace.KindNarration: "» ", trace.KindViolation: "✗ "}[e.Kind]
		if v.RowSay != mark+e.Text.In(lang) || len(v.Lanes) != 0 {
			t.Errorf("%s: the timeline's row says %q with lanes %v, want %q across them", where, v.RowSay, v.Lanes, mark+e.Text.In(lang))
		}
		return
	}
	want := tui.LaneCells(tr, i, lang)
	lanes := append(append(append([]string{}, tr.Clients...), tr.Servers...), "stock")
	if len(v.Lanes) != len(lanes) {
		t.Errorf("%s: lanes %v, want one for each of %v", where, v.Lanes, lanes)
	}
	for _, l := range lanes {
		if v.Lanes[l] != want[l] {
			t.Errorf("%s: lane %s shows %q, the TUI %q", where, l, v.Lanes[l], want[l])
		}
	}
}

func checkInvariants(t *testing.T, where string, v view, tr *trace.Trace, i int, lang string) {
	t.Helper()
	if len(v.Invariants) != len(tr.Verdicts) {
		t.Fatalf("%s: %d invariants shown, want %d", where, len(v.Invariants), len(tr.Verdicts))
	}
	for n, verdict := range tr.Verdicts {
		got := v.Invariants[n]
		mark := "✓"
		if verdict.Broken && verdict.Step <= i {
			mark = fmt.Sprintf(map[string]string{"en": "✗ step %d", "zh": "✗ 第 %d 步"}[lang], verdict.Step)
		}
		if got.ID != verdict.Invariant || got.Name != invariant.NameOf(verdict.Invariant).In(lang) || got.Mark != mark {
			t.Errorf("%s: invariant %d shows %s %q %q, want %s %q %q", where, n, got.ID, got.Name, got.Mark,
				verdict.Invariant, invariant.NameOf(verdict.Invariant).In(lang), mark)
		}
	}
}

// writePage writes a player page for the traces into dir.
func writePage(t *testing.T, dir, name string, p Player) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, page(t, p), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func firstBroken(tr *trace.Trace, id string) int {
	for _, v := range tr.Verdicts {
		if v.Invariant == id && v.Broken {
			return v.Step
		}
	}
	return -1
}

// The walk: get-then-del × uuid-get-del opened at the step where
// ownership breaks shows 误删 / "deleted the lock that B wrote"; three
// steps back it is another page; the keys move as the TUI's do.
func TestBrowserPlayer(t *testing.T) {
	b := newBrowser(t)
	dir, shots := t.TempDir(), artefacts(t)
	tr, fix := playRun(t, "get-then-del", "uuid-get-del"), playRun(t, "get-then-del", "uuid-lua")
	file := writePage(t, dir, "get-then-del.html", Player{Traces: []*trace.Trace{tr, fix}, Lang: "en"})
	own := firstBroken(tr, invariant.Ownership)

	b.open(file, fmt.Sprintf("step=%d", own))
	at := b.view()
	check(t, at, tr, own, "en")
	if !strings.Contains(at.Narration, "deleted the lock that B wrote") {
		t.Errorf("step %d says %q, want the lock that B wrote deleted", own, at.Narration)
	}
	b.screenshot(shots, "player-1280x800.png", 1280, 800)
	b.do(chromedp.EmulateViewport(1280, 800))

	b.keys(kb.ArrowLeft + kb.ArrowLeft + kb.ArrowLeft)
	back := b.view()
	check(t, back, tr, own-3, "en")
	if back.Narration == at.Narration || back.Hash != fmt.Sprintf("#step=%d", own-3) {
		t.Errorf("three steps back: narration %q, address %q; want another page at #step=%d", back.Narration, back.Hash, own-3)
	}
	b.keys("h")
	check(t, b.view(), tr, own-4, "en")
	b.keys("ll")
	check(t, b.view(), tr, own-2, "en")
	b.keys("v")
	check(t, b.view(), tr, own, "en")
	b.keys("v")
	check(t, b.view(), tr, firstBroken(tr, invariant.Mutex), "en")

	b.keys("L")
	zh := b.view()
	check(t, zh, tr, firstBroken(tr, invariant.Mutex), "zh")
	b.keys("v")
	b.keys("v")
	zh = b.view()
	check(t, zh, tr, own, "zh")
	if !strings.Contains(zh.Narration, "误删") || zh.Lang != "zh-Hans" {
		t.Errorf("in Chinese, step %d says %q (lang %q), want 误删", own, zh.Narration, zh.Lang)
	}
	b.keys("L")

	// Every step, from the first, with →.
	b.keys("g")
	check(t, b.view(), tr, 0, "en")
	for i := 1; i < len(tr.Events); i++ {
		b.keys(kb.ArrowRight)
		check(t, b.view(), tr, i, "en")
	}

	playAndPause(t, b, tr, own)
	compare(t, b, tr)

	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = "#step=%d"`, own)))
	b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, own))
	b.screenshot(shots, "player-375x667.png", 375, 667)
	if v := b.view(); v.Overflow {
		t.Error("at 375 px the page is wider than the screen")
	}
	b.noConsoleErrors()
}

// playAndPause: space plays on until space again; the page is then at a
// step that it shows whole.
func playAndPause(t *testing.T, b *browser, tr *trace.Trace, from int) {
	t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = "#step=%d"`, from)))
	b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, from))
	b.keys("+++") // 16 steps a second
	b.keys(" ")
	b.wait(fmt.Sprintf(`Number(document.getElementById("player").dataset.step) > %d`, from))
	b.keys(" ")
	b.wait(`document.getElementById("play").textContent.includes("play")`)
	v := b.view()
	check(t, v, tr, v.Step, "en")
}

// compare: c sets the lesson's fix beside the run, d goes to where they
// differ, c again goes back to one run.
func compare(t *testing.T, b *browser, tr *trace.Trace) {
	t.Helper()
	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "true"`)
	v := b.view()
	if !strings.Contains(v.Status, "uuid-get-del vs uuid-lua") || !strings.Contains(v.Hash, "vs=uuid-lua") {
		t.Errorf("compare mode: status %q, address %q", v.Status, v.Hash)
	}
	b.keys("d")
	v = b.view()
	if v.Sep != "≠" || !strings.Contains(v.RowClass, "differ") || !strings.Contains(v.Narration, "uuid-lua: ") {
		t.Errorf("d: row %d (class %q, separator %q), narration %q; want the first row that differs", v.Row, v.RowClass, v.Sep, v.Narration)
	}
	b.keys("c")
	b.wait(`document.getElementById("player").dataset.compare === "false"`)
	v = b.view()
	check(t, v, tr, v.Step, "en")
}

// A sample of cells, a few steps each: one server, a replica, five Redlock
// nodes, a fencing token, a watchdog, a paused client.
func TestBrowserCells(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	cells := [][2]string{
		{"failover", "uuid-lua"}, {"redlock-restart", "redlock"}, {"gc-pause", "fenced"},
		{"hung-holder", "uuid-lua-watchdog-uncapped"}, {"guard-version", "uuid-lua-watchdog"},
	}
	for _, c := range cells {
		tr := playRun(t, c[0], c[1])
		lang := "en"
		if c[0] == "redlock-restart" || c[0] == "gc-pause" {
			lang = "zh"
		}
		file := writePage(t, dir, c[0]+".html", Player{Traces: []*trace.Trace{tr}, Lang: lang})
		b.open(file, "")
		check(t, b.view(), tr, 0, lang)
		if c[0] == "redlock-restart" { // five nodes: every step
			for i := 1; i < len(tr.Events); i++ {
				b.keys("l")
				check(t, b.view(), tr, i, lang)
			}
		}
		for _, i := range sampleSteps(tr) {
			b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = "#step=%d"`, i)))
			b.wait(fmt.Sprintf(`document.getElementById("player").dataset.step === "%d"`, i))
			check(t, b.view(), tr, i, lang)
		}
	}
	b.noConsoleErrors()
}

// sampleSteps are a trace's violations, the steps just before them, and a
// few spread over the run.
func sampleSteps(tr *trace.Trace) []int {
	n := len(tr.Events)
	steps := []int{n / 3, n / 2, 2 * n / 3, n - 1}
	for _, v := range tr.Verdicts {
		if v.Broken {
			steps = append(steps, v.Step-1, v.Step)
		}
	}
	return steps
}
