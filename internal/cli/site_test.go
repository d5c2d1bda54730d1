package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/web"
)

// lockstep site DIR writes index.html, the self-check and a page per
// lesson holding every implementation's run, within the size budget; every
// link is relative and leads to a page of the site; nothing refers to the
// network.
func TestSite(t *testing.T) {
	wholeMatrix(t)
	dir := t.TempDir()
	out := mustRun(t, "site", dir)
	if !strings.Contains(out, "wrote ") || !strings.Contains(out, filepath.Join(dir, "index.html")) {
		t.Errorf("site says %q", out)
	}
	want := []string{"index.html", "self-check.html"}
	for _, s := range scenarios.All() {
		want = append(want, s.ID+".html")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("site wrote %d files, want %d", len(entries), len(want))
	}
	total := 0
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		checkSitePage(t, dir, name, b)
	}
	check, err := os.ReadFile(filepath.Join(dir, "self-check.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Self-check", "# 自查清单"} {
		heading := "<h2>" + strings.TrimPrefix(want, "# ")
		if !strings.Contains(string(check), heading) {
			t.Errorf("self-check.html lacks %q", heading)
		}
	}
	if strings.Contains(string(check), "&lt;!--") {
		t.Error("self-check.html shows a Markdown comment")
	}
	if total > web.Budget {
		t.Errorf("the site is %d bytes, over its budget of %d", total, web.Budget)
	}
	t.Logf("the site: %d files, %d bytes", len(want), total)
}

var (
	hrefRE    = regexp.MustCompile(`href="([^"]*)"`)
	networkRE = regexp.MustCompile(`(?i)(https?:|\bsrc\s*=|url\(|@import)`)
)

func checkSitePage(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if m := networkRE.Find(b); m != nil {
		t.Errorf("%s refers to the network: %q", name, m)
	}
	for _, m := range hrefRE.FindAllSubmatch(b, -1) {
		target, _, _ := strings.Cut(string(m[1]), "#")
		if target == "" || strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
			t.Errorf("%s links %q: not a page of the site", name, m[1])
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, target)); err != nil {
			t.Errorf("%s links %q: %v", name, m[1], err)
		}
	}
	id, ok := strings.CutSuffix(name, ".html")
	if _, err := scenarios.Lookup(id); !ok || err != nil {
		return
	}
	traces, order, err := web.EmbeddedTraces(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(order) != len(lockimpl.Names()) {
		t.Errorf("%s holds %d runs, want every implementation's (%d)", name, len(order), len(lockimpl.Names()))
	}
	if id == "get-then-del" {
		js := mustRunShared(t, "play", "get-then-del", "--impl", "uuid-lua", "--format", "json")
		if !sameJSON(t, traces["uuid-lua"], []byte(js)) {
			t.Error("get-then-del.html's uuid-lua run differs from play --format json's")
		}
	}
}
