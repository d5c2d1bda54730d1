package web

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/chromedp/chromedp"
)

// Every character the pages show renders as a glyph, not as a box (#37,
// item 12: ⏸ was a box with Debian's default fonts).
//
// How a box is told from a glyph: a character that no installed font has
// is drawn as the first font's .notdef glyph, the same box for every such
// character. So each character is drawn alone on a canvas, in the font
// (the whole font-family list) of the element that shows it, and its
// pixels are compared with those of U+10FFFF, a noncharacter no font
// has: identical pixels are the box. The canvas goes through Chromium's
// font fallback as the page's text does, so a character that the first
// font lacks and another font has passes, as it shows on the page. The
// method checks itself first: U+10FFFF and U+0378 (unassigned) must draw
// the same inked box, and "A" something else.
//
// Which characters: those of every text node and every ::before/::after
// content of the player page, at every step of the traces that hold
// every character the engine's narration uses (a cover of the site's
// runs), in English and in Chinese, in compare mode, playing, with a
// client parked and one hung; those of the site's index and self-check;
// and every one that player.js, player.css and player.html hold, in both
// of the page's font stacks, for the states not visited. A symbol the
// page draws itself (player.js's ICONS: ⏸, ⧗) must show as that drawing
// wherever its character would be, and never as text. Chinese characters
// and punctuation are left out where no CJK font is installed (Debian's
// chromium brings none): the page relies on the reader's, as a reader of
// Chinese has one.
func TestBrowserGlyphs(t *testing.T) {
	b := newBrowser(t)
	dir, results := writeSite(t)

	// The traces to walk: a cover of the runes of every run's texts, and
	// runs with a client parked and one hung.
	want := map[rune]string{}
	var all []*trace.Trace
	for _, r := range results {
		if r.Trace == nil {
			continue
		}
		all = append(all, r.Trace)
		for c := range traceRunes(r.Trace) {
			if _, ok := want[c]; !ok {
				want[c] = r.Scenario + " × " + r.Impl
			}
		}
	}
	walk := cover(all)
	for _, flag := range []func(trace.ClientState) bool{
		func(c trace.ClientState) bool { return c.Held }, func(c trace.ClientState) bool { return c.Hung },
	} {
		if i := slices.IndexFunc(all, func(tr *trace.Trace) bool { return anyClient(tr, flag) }); i >= 0 && !slices.Contains(walk, all[i]) {
			walk = append(walk, all[i])
		}
	}

	g := glyphs{}
	// The lesson's page of two runs, in compare mode; then the runs of the
	// cover, one a page.
	tr, fix := resultTrace(results, "get-then-del", "uuid-get-del"), resultTrace(results, "get-then-del", "uuid-lua")
	b.open(writePage(t, t.TempDir(), "get-then-del.html", Player{Traces: []*trace.Trace{tr, fix}, Lang: "en"}), "")
	g.walkPlayer(b, true)
	for n, tr := range walk {
		b.open(writePage(t, t.TempDir(), fmt.Sprintf("walk-%d.html", n), Player{Traces: []*trace.Trace{tr}, Lang: "en"}), "")
		g.walkPlayer(b, false)
	}
	fonts := g.fonts(b)
	for _, page := range []string{"index.html", "self-check.html"} {
		b.open(filepath.Join(dir, page), "")
		g.collect(b, page)
	}

	icons := pageIcons(t)
	cjk := b.hasCJK(fonts[0])
	if !cjk {
		t.Log("no CJK font installed: Chinese characters and punctuation are not checked")
	}
	var checks []glyphCheck
	for _, s := range g.Seen {
		c := []rune(s.Ch)[0]
		if isCJK(c) && !cjk {
			continue
		}
		if strings.ContainsRune(icons, c) {
			t.Errorf("U+%04X %s shows as text (%s), where the page draws it", c, s.Ch, s.Where)
		}
		checks = append(checks, glyphCheck{Ch: s.Ch, Font: s.Font, Where: s.Where})
	}
	for _, src := range []struct{ name, text string }{{"player.js", playerJS}, {"player.css", playerCSS}, {"player.html", playerHTML}} {
		for c := range symbolRunes(src.text) {
			if strings.ContainsRune(icons, c) || (isCJK(c) && !cjk) {
				continue
			}
			for _, f := range fonts {
				checks = append(checks, glyphCheck{Ch: string(c), Font: f, Where: src.name})
			}
		}
	}
	for _, bad := range b.boxes(checks) {
		c := []rune(bad.Ch)[0]
		t.Errorf("U+%04X %s renders as a box in %s (%s)", c, bad.Ch, bad.Font, bad.Where)
	}

	// Each character of the runs' texts was on the page, as text or drawn
	// (but Chinese characters: the cover is of the others; those it shows
	// are checked above).
	for c, where := range want {
		if isCJK(c) {
			continue
		}
		if !g.shown(c) {
			t.Errorf("U+%04X %c of %s's texts never showed on the page walked", c, c, where)
		}
	}
	for _, c := range icons {
		d, ok := g.Drawn[string(c)]
		if !ok || d.W <= 0 || d.H <= 0 {
			t.Errorf("U+%04X %c: the page's drawing of it never showed, or had no size (%+v)", c, c, d)
		}
	}
	b.noConsoleErrors()
}

// traceRunes are the runes of what the player page shows of a run.
func traceRunes(tr *trace.Trace) map[rune]bool {
	var s strings.Builder
	s.WriteString(tr.Title.EN + tr.Title.ZH)
	for _, e := range tr.Events {
		s.WriteString(e.Text.EN + e.Text.ZH + e.Short.EN + e.Short.ZH + e.Command + e.Reply)
		for _, srv := range e.Snap.Servers {
			for _, k := range srv.Keys {
				s.WriteString(k.Key + k.Value)
			}
		}
	}
	for _, v := range tr.Verdicts {
		s.WriteString(v.Reason.EN + v.Reason.ZH)
	}
	return symbolRunes(s.String())
}

// symbolRunes are a text's runes beyond ASCII that draw something: not
// spaces, controls or format characters.
func symbolRunes(s string) map[rune]bool {
	out := map[rune]bool{}
	for _, c := range s {
		if c > unicode.MaxASCII && !unicode.IsSpace(c) && !unicode.In(c, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me) {
			out[c] = true
		}
	}
	return out
}

// isCJK: Chinese (Japanese, Korean) characters and punctuation, fullwidth
// forms, which a CJK font draws.
func isCJK(c rune) bool {
	return unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(c >= 0x2E80 && c <= 0x303F) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFFEF)
}

// cover picks traces until every rune of all of them is in one picked:
// the one with the most runes not yet covered first, the shortest of
// those.
func cover(all []*trace.Trace) []*trace.Trace {
	sets := make([]map[rune]bool, len(all))
	for i, tr := range all {
		sets[i] = traceRunes(tr)
	}
	covered := map[rune]bool{}
	var out []*trace.Trace
	for {
		best, gain := -1, 0
		for i, set := range sets {
			n := 0
			for c := range set {
				if !covered[c] && !isCJK(c) {
					n++
				}
			}
			if n > gain || (n == gain && n > 0 && len(all[i].Events) < len(all[best].Events)) {
				best, gain = i, n
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, all[best])
		for c := range sets[best] {
			covered[c] = true
		}
	}
}

func anyClient(tr *trace.Trace, flag func(trace.ClientState) bool) bool {
	for _, e := range tr.Events {
		if slices.ContainsFunc(e.Snap.Clients, flag) {
			return true
		}
	}
	return false
}

// pageIcons are the characters the page draws itself: the keys of
// player.js's ICONS.
func pageIcons(t *testing.T) string {
	m := regexp.MustCompile(`const ICONS = \{([^}]*)\}`).FindStringSubmatch(playerJS)
	if m == nil {
		return ""
	}
	var out strings.Builder
	for _, k := range regexp.MustCompile(`"([^"\\])"\s*:`).FindAllStringSubmatch(m[1], -1) {
		out.WriteString(k[1])
	}
	if out.Len() == 0 {
		t.Fatalf("player.js's ICONS names no character: %q", m[1])
	}
	return out.String()
}

// glyphs is what the pages walked showed: each character in each font,
// where first; and each drawn symbol, its smallest size.
type glyphs struct {
	Seen  map[string]seenGlyph `json:"seen"`
	Drawn map[string]drawnSym  `json:"drawn"`
}

type seenGlyph struct {
	Ch    string `json:"ch"`
	Font  string `json:"font"`
	Where string `json:"where"`
}

type drawnSym struct {
	W float64 `json:"w"`
	H float64 `json:"h"`
}

func (g *glyphs) shown(c rune) bool {
	if _, ok := g.Drawn[string(c)]; ok {
		return true
	}
	for _, s := range g.Seen {
		if s.Ch == string(c) {
			return true
		}
	}
	return false
}

// glyphWalker, put into a page, gathers into window.__glyphs what the page
// shows now: collect(where, whole) adds the characters of its text
// nodes, and with whole those of its elements' ::before and ::after.
const glyphWalker = `(() => {
  const acc = window.__glyphs = window.__glyphs || { seen: {}, drawn: {} };
  const draws = (c) => c.codePointAt(0) > 127 && !/[\s\p{Cc}\p{Cf}\p{Mn}\p{Me}]/u.test(c);
  const name = (e) => e.id ? "#" + e.id : e.tagName.toLowerCase() + (e.className && typeof e.className === "string" ? "." + e.className.split(" ")[0] : "");
  // An element's font, by the path of tags, ids and classes that the
  // page's styles choose it by: reading a computed style at each step
  // would restyle the page each time.
  const fonts = new Map();
  const fontOf = (e) => {
    let path = document.documentElement.lang;
    for (let x = e; x && x !== document.body; x = x.parentElement) path = x.tagName + "#" + x.id + "." + x.className + ">" + path;
    if (!fonts.has(path)) fonts.set(path, getComputedStyle(e).fontFamily);
    return fonts.get(path);
  };
  const note = (text, e, where) => {
    if (!/[^\x00-\x7f]/.test(text)) return;
    const font = fontOf(e);
    for (const c of text) {
      if (!draws(c)) continue;
      const k = c + "\u0000" + font;
      if (!(k in acc.seen)) acc.seen[k] = { ch: c, font, where: where + " " + name(e) + " " + JSON.stringify(text.slice(0, 40)) };
    }
  };
  // The strings of a computed content value: "…" and attr(…).
  const content = (e, v) => {
    let out = "";
    v.replace(/"((?:[^"\\]|\\.)*)"|attr\(([^)]*)\)/g, (m, s, a) => { out += s !== undefined ? s.replace(/\\(.)/g, "$1") : e.getAttribute(a.trim()) || ""; return m; });
    return out;
  };
  // collect gathers from the page's body, or from what changes as the
  // player steps when not whole.
  window.__collect = (where, whole) => {
    const roots = whole ? [document.body] : ["status", "now", "band", "controls"].map((id) => document.getElementById(id));
    for (const root of roots) {
      const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = w.nextNode(); n; n = w.nextNode()) {
        const p = n.parentElement;
        if (p && !p.closest("script, style")) note(n.data, p, where);
      }
    }
    (whole ? document : document.getElementById("player")).querySelectorAll("[data-sym]").forEach((e) => {
      const r = e.getBoundingClientRect(), s = e.dataset.sym, d = acc.drawn[s];
      if (!e.getClientRects().length) return;
      if (!d || r.width < d.w) acc.drawn[s] = { w: r.width, h: r.height };
    });
    if (!whole) return;
    for (const e of document.body.querySelectorAll("*")) {
      for (const which of ["::before", "::after"]) {
        const v = getComputedStyle(e, which).content;
        if (v && v !== "none" && v !== "normal") note(content(e, v), e, where + " " + which);
      }
    }
  };
  const key = (k) => document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
  const main = () => document.getElementById("player");
  // steps walks every step (every row in compare mode) from the first.
  window.__steps = (where) => {
    key("g");
    window.__collect(where, true);
    for (let n = 0; n < 10000; n++) {
      const at = main().dataset.step + "/" + main().dataset.row;
      key("ArrowRight");
      if (main().dataset.step + "/" + main().dataset.row === at) break;
      window.__collect(where, false);
    }
    key(" ");
    window.__collect(where + " playing", false);
    key(" ");
  };
  window.__key = key;
})()`

func (g *glyphs) eval(b *browser, expr string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](glyphWalker), chromedp.Evaluate[chromedp.Void](expr))
}

// walkPlayer walks the player page open in both languages, or, for a
// page of two runs, in compare mode.
func (g *glyphs) walkPlayer(b *browser, compare bool) {
	b.t.Helper()
	if compare {
		g.eval(b, `window.__key("c")`)
		b.wait(`document.getElementById("player").dataset.compare === "true"`)
		g.eval(b, `window.__steps("compare")`)
	} else {
		g.eval(b, `window.__steps("en")`)
		g.eval(b, `window.__key("L"); window.__steps("zh")`)
	}
	g.take(b)
}

// collect gathers what a page of the site shows.
func (g *glyphs) collect(b *browser, where string) {
	b.t.Helper()
	g.eval(b, fmt.Sprintf(`window.__collect(%q, true)`, where))
	g.take(b)
}

// take adds what the page open has gathered.
func (g *glyphs) take(b *browser) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](`window.__glyphs`))
	if err != nil {
		b.t.Fatal(err)
	}
	var got glyphs
	if err := json.Unmarshal(raw, &got); err != nil {
		b.t.Fatal(err)
	}
	if g.Seen == nil {
		g.Seen, g.Drawn = map[string]seenGlyph{}, map[string]drawnSym{}
	}
	for k, s := range got.Seen {
		if _, ok := g.Seen[k]; !ok {
			g.Seen[k] = s
		}
	}
	for k, d := range got.Drawn {
		if old, ok := g.Drawn[k]; !ok || d.W < old.W {
			g.Drawn[k] = d
		}
	}
}

// fonts are the player page's two font stacks: its text's and its
// timeline's.
func (g *glyphs) fonts(b *browser) []string {
	b.t.Helper()
	fonts, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[getComputedStyle(document.body).fontFamily, getComputedStyle(document.querySelector("#timeline td")).fontFamily]`))
	if err != nil {
		b.t.Fatal(err)
	}
	return fonts
}

type glyphCheck struct {
	Ch    string `json:"ch"`
	Font  string `json:"font"`
	Where string `json:"where"`
}

// boxDetector draws each character alone in its font and compares the
// pixels with those of U+10FFFF, a character no font has: the same pixels
// are the box. It throws when it cannot tell a box from a glyph.
const boxDetector = `((checks) => {
  const c = document.createElement("canvas");
  c.width = 96; c.height = 96;
  const g = c.getContext("2d", { willReadFrequently: true });
  const draw = (ch, font) => {
    g.clearRect(0, 0, c.width, c.height);
    g.font = "48px " + font;
    g.textBaseline = "middle";
    g.fillStyle = "#000";
    g.fillText(ch, 8, 48);
    return g.getImageData(0, 0, c.width, c.height).data;
  };
  const same = (a, b) => a.every((v, i) => v === b[i]);
  const boxes = new Map();
  const box = (font) => {
    if (!boxes.has(font)) {
      const b = draw("\u{10FFFF}", font), ink = b.some((v, i) => i % 4 === 3 && v > 0);
      if (!ink || !same(b, draw("\u0378", font)) || same(b, draw("A", font)))
        throw new Error("cannot tell a box from a glyph in " + font);
      boxes.set(font, b);
    }
    return boxes.get(font);
  };
  return checks.filter((k) => same(draw(k.ch, k.font), box(k.font)));
})`

// boxes are the checks whose character renders as a box.
func (b *browser) boxes(checks []glyphCheck) []glyphCheck {
	b.t.Helper()
	arg, err := json.Marshal(checks)
	if err != nil {
		b.t.Fatal(err)
	}
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](boxDetector+"("+string(arg)+")"))
	if err != nil {
		b.t.Fatal(err)
	}
	var out []glyphCheck
	if err := json.Unmarshal(raw, &out); err != nil {
		b.t.Fatal(err)
	}
	return out
}

// hasCJK: a CJK font draws 中.
func (b *browser) hasCJK(font string) bool {
	b.t.Helper()
	return len(b.boxes([]glyphCheck{{Ch: "中", Font: font}})) == 0
}
