package web

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// Site is the whole course as static pages: an index of the lessons, a
// player page per lesson holding every implementation's run, and the
// self-check, each in English and Chinese (a switch on the page). Every
// link is relative: the directory works on any static host or from a USB
// stick.
type Site struct {
	// Results are the matrix as check runs it, each cell with its trace.
	Results []scenarios.Result
	// Lang is the language the pages open in.
	Lang string
	// SelfCheck is docs/self-check.md, the English checklist.
	SelfCheck string
}

// Budget is the most the whole site may weigh, in bytes: 4.4 MB today
// (38 lessons × 26 implementations), the runs half of it, a lesson's
// gzipped together; the rest is each page's own script and styles.
const Budget = 6 << 20

// Pages returns the site's files by name: index.html, self-check.html and
// <lesson>.html for every lesson.
func (s Site) Pages() (map[string][]byte, error) {
	pages := map[string][]byte{}
	lessons := scenarios.All()
	for i, l := range lessons {
		p := Player{Traces: s.traces(l), Lang: s.Lang, Encoding: Gzip, Index: "index.html"}
		if len(p.Traces) == 0 {
			return nil, fmt.Errorf("site: no run of %s", l.ID)
		}
		if i > 0 {
			p.Prev = lessons[i-1].ID
		}
		if i+1 < len(lessons) {
			p.Next = lessons[i+1].ID
		}
		var b strings.Builder
		if err := p.Write(&b); err != nil {
			return nil, err
		}
		pages[l.ID+".html"] = []byte(b.String())
	}
	pages["index.html"] = []byte(s.page(text.New("lockstep: the lessons", "lockstep：课程"), s.index(lessons)))
	check, err := s.selfCheck(lessons)
	if err != nil {
		return nil, err
	}
	pages["self-check.html"] = []byte(s.page(text.New("lockstep: self-check", "lockstep：自查清单"), check))
	return pages, nil
}

// traces are a lesson's runs: the implementation it is about first, then
// the others in the catalogue's order.
func (s Site) traces(l scenarios.Scenario) []*trace.Trace {
	var out []*trace.Trace
	for _, r := range s.Results {
		if r.Scenario == l.ID && r.Trace != nil {
			out = append(out, r.Trace)
		}
	}
	slices.SortStableFunc(out, func(a, b *trace.Trace) int {
		return rank(l, a.Impl) - rank(l, b.Impl)
	})
	return out
}

func rank(l scenarios.Scenario, impl string) int {
	if impl == l.Naive {
		return -1
	}
	return slices.Index(lockimpl.Names(), impl)
}

// both is a text in both languages, the page showing the one it is in.
func both(tag string, t text.Text) string {
	if t.EN == t.ZH {
		return "<" + tag + ">" + html.EscapeString(t.EN) + "</" + tag + ">"
	}
	return fmt.Sprintf(`<%s lang="en" class="alt">%s</%s><%s lang="zh-Hans" class="alt">%s</%s>`,
		tag, html.EscapeString(t.EN), tag, tag, html.EscapeString(t.ZH), tag)
}

// page is a page of the site other than a player: the skeleton, the
// styles, the language switch.
func (s Site) page(title text.Text, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="%s" data-lang="%s">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>%s</title>
<style>
%s</style>
</head>
<body class="site">
<header id="top">
  <nav id="nav">%s</nav>
  <div id="langs" role="group" aria-label="language / 语言">
    <button type="button" data-lang="en" lang="en">English</button>
    <button type="button" data-lang="zh" lang="zh-Hans">中文</button>
  </div>
</header>
<main>
%s
</main>
<script>
%s</script>
</body>
</html>
`, htmlLang(s.Lang), s.lang(), html.EscapeString(title.In(s.Lang)), playerCSS,
		`<a href="index.html" data-page="index.html">`+both("span", text.New("lessons", "课程"))+`</a> <a href="self-check.html" data-page="self-check.html">`+both("span", text.New("self-check", "自查清单"))+`</a>`,
		body, siteJS)
	return b.String()
}

func (s Site) lang() string {
	if s.Lang == "zh" {
		return "zh"
	}
	return "en"
}

// siteJS switches the language of a page of the site (#lang=zh, the
// buttons) and carries it along the site's links.
const siteJS = `"use strict";
(() => {
  const root = document.documentElement;
  function set(lang) {
    root.lang = lang === "zh" ? "zh-Hans" : "en";
    document.querySelectorAll("#langs button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.lang === lang)));
    document.querySelectorAll("a[data-page]").forEach((a) => {
      const page = a.dataset.page;
      a.href = lang !== "zh" ? page : page + (page.includes("#") ? "&" : "#") + "lang=zh";
    });
    history.replaceState(null, "", location.pathname + (lang === root.dataset.lang ? "" : "#lang=" + lang));
  }
  const wanted = new URLSearchParams(location.hash.slice(1)).get("lang");
  document.querySelectorAll("#langs button").forEach((b) => b.addEventListener("click", () => set(b.dataset.lang)));
  document.addEventListener("keydown", (ev) => { if (ev.key === "L" && !ev.ctrlKey && !ev.metaKey && !ev.altKey) set(root.lang === "en" ? "zh" : "en"); });
  set(wanted === "zh" || wanted === "en" ? wanted : root.dataset.lang);
  document.body.dataset.ready = "true";
})();
`
