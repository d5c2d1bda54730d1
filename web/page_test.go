package web

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// playRun plays a built-in lesson against an implementation.
func playRun(t *testing.T, lesson, impl string) *trace.Trace {
	t.Helper()
	s, err := scenarios.Lookup(lesson)
	if err != nil {
		t.Fatal(err)
	}
	info, err := lockimpl.Lookup(impl)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Run(info)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func page(t *testing.T, p Player) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameJSON says whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// networkRef finds anything in a page that would make a browser fetch or
// link outside the file: a URL with a scheme, a src, an href other than
// "#", a CSS url() or @import.
var networkRef = regexp.MustCompile(`(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}/|\bsrc\s*=|href="[^#"][^"]*"|url\(|@import|fetch\(|XMLHttpRequest|WebSocket)`)

func TestPlayerPageSelfContained(t *testing.T) {
	tr := playRun(t, "get-then-del", "uuid-get-del")
	b := page(t, Player{Traces: []*trace.Trace{tr}, Lang: "en"})
	if len(b) > 2<<20 {
		t.Errorf("page is %d bytes, want under 2 MB", len(b))
	}
	if m := networkRef.Find(b); m != nil {
		t.Errorf("page refers outside itself: %q", m)
	}
	for _, want := range []string{"<!DOCTYPE html>", `<html lang="en">`, "default-src 'none'", `id="lockstep-meta"`, "<style>", "<script>\n// lockstep's player page"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	traces, order, err := EmbeddedTraces(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 1 || order[0] != "uuid-get-del" {
		t.Fatalf("embedded traces %v, want [uuid-get-del]", order)
	}
	var want bytes.Buffer
	if err := report.JSON(&want, tr); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, traces["uuid-get-del"], want.Bytes()) {
		t.Error("the embedded trace differs from play --format json's")
	}
}

// A site's page holds each implementation's trace gzipped; it reads back
// the same.
func TestPlayerPageGzip(t *testing.T) {
	a, b := playRun(t, "get-then-del", "uuid-get-del"), playRun(t, "get-then-del", "uuid-lua")
	p := page(t, Player{Traces: []*trace.Trace{a, b}, Lang: "zh", Encoding: Gzip, Index: "index.html"})
	if !bytes.Contains(p, []byte(`<html lang="zh-Hans">`)) {
		t.Error("a Chinese page is not marked zh-Hans")
	}
	traces, order, err := EmbeddedTraces(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "uuid-get-del,uuid-lua" {
		t.Fatalf("embedded %v", order)
	}
	for _, tr := range []*trace.Trace{a, b} {
		want, _ := json.Marshal(tr)
		if !sameJSON(t, traces[tr.Impl], want) {
			t.Errorf("%s: the embedded trace differs", tr.Impl)
		}
	}
	var m meta
	metaJSON := regexp.MustCompile(`id="lockstep-meta">([^<]*)<`).FindSubmatch(p)
	if err := json.Unmarshal(metaJSON[1], &m); err != nil {
		t.Fatal(err)
	}
	if m.Partners["uuid-get-del"] != "uuid-lua" || m.Index != "index.html" || m.Lang != "zh" {
		t.Errorf("meta: partners %v, index %q, lang %q", m.Partners, m.Index, m.Lang)
	}
	if !strings.Contains(m.Story.ZH, "<code>uuid-get-del</code>") {
		t.Errorf("the Chinese story is not rendered: %q", m.Story.ZH)
	}
}

// No string of a trace can end its element or start markup: a trace file
// is anyone's.
func TestPlayerPageEscapes(t *testing.T) {
	tr := playRun(t, "get-then-del", "uuid-get-del")
	evil := `</script><script>alert(1)</script><!--`
	tr.Title.EN = evil
	tr.Impl = `x"><img src=x onerror=alert(1)>`
	tr.Events[0].Text.EN = evil
	b := page(t, Player{Traces: []*trace.Trace{tr}})
	if n := bytes.Count(b, []byte("</script>")); n != 3 { // meta, the trace, the player
		t.Errorf("%d </script> in the page, want 3", n)
	}
	for _, bad := range []string{"<img", "alert(1)</", "<!--"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	traces, _, err := EmbeddedTraces(b)
	if err != nil {
		t.Fatal(err)
	}
	var back trace.Trace
	if err := json.Unmarshal(traces[tr.Impl], &back); err != nil {
		t.Fatal(err)
	}
	if back.Title.EN != evil || back.Events[0].Text.EN != evil {
		t.Error("the escaped strings do not read back as they were")
	}
}

func TestPlayerNeedsATrace(t *testing.T) {
	if err := (Player{}).Write(&bytes.Buffer{}); err == nil {
		t.Error("a page without a trace was written")
	}
}

func TestMarkdown(t *testing.T) {
	link := func(href string) (string, bool) {
		if strings.HasSuffix(href, ".md") {
			return strings.TrimSuffix(href, ".md") + ".html", true
		}
		return "", false
	}
	tests := []struct{ in, want string }{
		{"a `b<c>` **d** *e*", "<p>a <code>b&lt;c&gt;</code> <strong>d</strong> <em>e</em></p>\n"},
		{"[x](get-then-del.md) [y](../lockimpl/x.go)", "<p><a href=\"get-then-del.html\">x</a> y</p>\n"},
		{"# T\n\none\ntwo\n\n- a\n  b\n- c", "<h2>T</h2>\n<p>one two</p>\n<ul>\n<li>a b</li>\n<li>c</li>\n</ul>\n"},
		{"| a | b |\n|---|---|\n| `x\\|y` | <i> |", "<div class=\"scroll\"><table role=\"table\">\n<thead role=\"rowgroup\"><tr role=\"row\"><th role=\"columnheader\">a</th><th role=\"columnheader\">b</th></tr></thead>\n" +
			"<tbody role=\"rowgroup\">\n<tr role=\"row\"><td role=\"cell\" data-label=\"a\"><code>x|y</code></td><td role=\"cell\" data-label=\"b\">&lt;i&gt;</td></tr>\n</tbody></table></div>\n"},
		{"| `a` & **b** | c |\n|---|---|\n| 1 | 2 |", "<div class=\"scroll\"><table role=\"table\">\n<thead role=\"rowgroup\"><tr role=\"row\"><th role=\"columnheader\"><code>a</code> &amp; <strong>b</strong></th><th role=\"columnheader\">c</th></tr></thead>\n" +
			"<tbody role=\"rowgroup\">\n<tr role=\"row\"><td role=\"cell\" data-label=\"a &amp; b\">1</td><td role=\"cell\" data-label=\"c\">2</td></tr>\n</tbody></table></div>\n"},
		{"```\n<b>\n```", "<pre><code>&lt;b&gt;</code></pre>\n"},
		{"<!-- a\nb -->\nc", "<p>c</p>\n"},
	}
	for _, tc := range tests {
		if got := Markdown(tc.in, link); got != tc.want {
			t.Errorf("Markdown(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
		}
	}
	if got := Markdown("[x](y.md)", nil); got != "<p>x</p>\n" {
		t.Errorf("without links: %q", got)
	}
}
