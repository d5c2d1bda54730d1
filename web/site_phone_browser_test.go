package web

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// tableFit is how wide a page of the site and its tables are, against
// the width they have.
type tableFit struct {
	Doc    [2]float64 `json:"doc"`
	Tables []struct {
		What   string     `json:"what"`
		Scroll [2]float64 `json:"scroll"`
		Right  float64    `json:"right"`
		Labels []string   `json:"labels"`
	} `json:"tables"`
	Width float64 `json:"width"`
}

const readTableFit = `(() => {
  const de = document.documentElement;
  const shown = (e) => e.getClientRects().length > 0;
  const tables = [...document.querySelectorAll("main table")].filter(shown).map((t, n) => {
    const box = t.closest(".scroll") || t;
    const row = t.querySelector("tbody tr") || t.querySelectorAll("tr")[1];
    const labels = row ? [...row.children].map((td) => {
      const c = getComputedStyle(td, "::before").content;
      return c === "none" || c === "normal" ? "" : c;
    }) : [];
    return { what: (t.className || "table") + " " + n, scroll: [box.scrollWidth, box.clientWidth],
      right: t.getBoundingClientRect().right, labels };
  });
  return { doc: [de.scrollWidth, de.clientWidth], tables, width: de.clientWidth };
})()`

// The site's index and self-check on a phone (#37, item 12): no table
// needs scrolling sideways (they were 616 and 775 px wide in 359), in
// either language; a row is a card, each cell labelled with its column's
// name. At 800 and 1280 px they are tables still, and fit.
func TestBrowserSiteOnAPhone(t *testing.T) {
	b := newBrowser(t)
	shots := artefacts(t)
	dir, _ := writeSite(t)
	fit := func(where string) tableFit {
		t.Helper()
		raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](readTableFit))
		if err != nil {
			t.Fatal(err)
		}
		var f tableFit
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Tables) == 0 {
			t.Fatalf("%s: no table shown", where)
		}
		return f
	}
	for _, page := range []string{"index.html", "self-check.html"} {
		b.do(chromedp.EmulateViewport(375, 667))
		b.open(filepath.Join(dir, page), "")
		for _, lang := range []string{"en", "zh"} {
			where := fmt.Sprintf("%s (%s) at 375×667", page, lang)
			if lang == "zh" {
				b.keys("L")
			}
			b.wait(fmt.Sprintf(`document.documentElement.lang === %q`, htmlLang(lang)))
			f := fit(where)
			if f.Doc[0] > f.Doc[1] {
				t.Errorf("%s: the page is %.0f px wide in %.0f", where, f.Doc[0], f.Doc[1])
			}
			for _, tb := range f.Tables {
				if tb.Scroll[0] > tb.Scroll[1] || tb.Right > f.Width+0.5 {
					t.Errorf("%s: %s scrolls sideways: %.0f px wide in %.0f (its right edge at %.0f of %.0f)",
						where, tb.What, tb.Scroll[0], tb.Scroll[1], tb.Right, f.Width)
				}
				labelled := 0
				for _, l := range tb.Labels {
					if l != "" {
						labelled++
					}
				}
				if labelled != len(tb.Labels) || labelled == 0 {
					t.Errorf("%s: %s's cells are not labelled with their columns: %q", where, tb.What, tb.Labels)
				}
			}
			b.screenshot(shots, fmt.Sprintf("site-%s-%s-375x667.png", page[:len(page)-len(".html")], lang), 375, 667)
		}
		b.keys("L")
		// Wider, a table, that fits.
		for _, w := range []int64{800, 1280} {
			b.do(chromedp.EmulateViewport(w, 800))
			f := fit(fmt.Sprintf("%s at %d px", page, w))
			for _, tb := range f.Tables {
				if tb.Scroll[0] > tb.Scroll[1] {
					t.Errorf("%s at %d px: %s scrolls sideways: %.0f px wide in %.0f", page, w, tb.What, tb.Scroll[0], tb.Scroll[1])
				}
			}
			display, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
				`[...document.querySelectorAll("main table")].filter((t) => t.getClientRects().length).map((t) => getComputedStyle(t).display)`))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range display {
				if d != "table" {
					t.Errorf("%s at %d px: a table shows as %q", page, w, d)
				}
			}
		}
	}
	b.noConsoleErrors()
}
