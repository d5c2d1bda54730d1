package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
)

// The pages in docs/ are what the engine produces now; a test, not a habit,
// keeps them so. Regenerate with: go generate ./... (which runs go run .
// docs docs, after the lessons' missing expect rows).
func TestDocsAreFresh(t *testing.T) {
	wholeMatrix(t)
	pages := englishPages(t)
	for _, s := range scenarios.All() {
		if _, ok := pages[s.ID+".md"]; !ok {
			t.Errorf("no page for %s", s.ID)
		}
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(repoRoot, "docs", name))
		if err != nil {
			t.Errorf("%v (run: go generate ./...)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/%s is stale: run go generate ./...", name)
		}
	}
}

// docs/self-check.md is the self-check as report/selfcheck.go writes it,
// whose parts are in both languages: the page is not edited by hand. Unlike
// TestDocsAreFresh, this needs no matrix, so it runs under the race
// detector too.
func TestSelfCheckIsFresh(t *testing.T) {
	got, err := os.ReadFile(repoPath("docs/self-check.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != report.SelfCheck("en") {
		t.Error("docs/self-check.md is stale: it is written from report/selfcheck.go (edit that, in English and Chinese); run go generate ./...")
	}
}

// The README's diagram is the one lockstep draws today.
func TestReadmeDiagramIsFresh(t *testing.T) {
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin = "```mermaid\n"
	i := bytes.Index(readme, []byte(begin))
	if i < 0 {
		t.Fatal("README has no Mermaid diagram")
	}
	rest := readme[i+len(begin):]
	got := rest[:bytes.Index(rest, []byte("```"))]
	want := mustRun(t, "play", "get-then-del", "--format", "mermaid")
	if string(got) != want {
		t.Errorf("the README's diagram is stale (it is go run . play get-then-del --format mermaid): run go generate ./...")
	}
}

// readmeSection is the part of the README under the heading, up to the next
// heading of its level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// The README's matrix is what lockstep check prints today, not a copy that
// a new failure mode or implementation leaves behind.
func TestReadmeMatrixIsFresh(t *testing.T) {
	wholeMatrix(t)
	const heading = "## The lesson, as `lockstep check` prints it"
	section := readmeSection(t, heading)
	_, block, ok := strings.Cut(section, "```\n")
	if !ok {
		t.Fatalf("README section %q has no code block", heading)
	}
	block, _, _ = strings.Cut(block, "```")
	if want := mustRunShared(t, "check"); block != want {
		t.Errorf("the README's matrix (%s) is stale (it is go run . check): run go generate ./...", heading)
	}
}

// The README's tables of failure modes and implementations list exactly the
// catalogue, in its order: go generate ./... writes a row a new entry needs,
// from the lesson's summary or the implementation's, for its author to make
// better in the diff; a row that is there is the author's.
func TestReadmeListsTheCatalogue(t *testing.T) {
	for _, tc := range []struct {
		heading, what, row string
		want               []string
	}{
		{"## The failure modes", "failure mode (scenarios.IDs())",
			"| `%s` | what happens | the naive implementation it is about |", scenarios.IDs()},
		{"## The implementations", "implementation (lockimpl.Names())",
			"| `%s` | what it is |", lockimpl.Names()},
	} {
		var got []string
		for line := range strings.Lines(readmeSection(t, tc.heading)) {
			if m := regexp.MustCompile("^\\| `([^`]+)` \\|").FindStringSubmatch(line); m != nil {
				got = append(got, m[1])
			}
		}
		for _, name := range tc.want {
			if !slices.Contains(got, name) {
				t.Errorf("README.md, %s: no row for the %s %q: run go generate ./..., which adds\n"+tc.row, tc.heading, tc.what, name, name)
			}
		}
		for _, name := range got {
			if !slices.Contains(tc.want, name) {
				t.Errorf("README.md, %s: %q is no %s; remove its row or correct the name", tc.heading, name, tc.what)
			}
		}
		if !t.Failed() && !slices.Equal(got, tc.want) {
			t.Errorf("README.md, %s: rows in the order %v, want the catalogue's %v", tc.heading, got, tc.want)
		}
	}
}

// Every field a trace has is described in docs/trace-schema.md.
func TestTraceSchemaDocumented(t *testing.T) {
	wholeMatrix(t)
	doc, err := os.ReadFile(repoPath("docs/trace-schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, s := range scenarios.All() {
		// Every scenario under the implementation with the most to show.
		for _, impl := range []string{s.Naive, "fenced", "redlock"} {
			var v any
			if err := json.Unmarshal([]byte(mustRun(t, "play", s.ID, "--impl", impl, "--format", "json")), &v); err != nil {
				t.Fatal(err)
			}
			collect(v, fields)
		}
	}
	var check []map[string]any
	if err := json.Unmarshal([]byte(mustRunShared(t, "check", "--json")), &check); err != nil {
		t.Fatal(err)
	}
	collect(check, fields)
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		if !strings.Contains(string(doc), "`"+f+"`") {
			t.Errorf("field %q is not described in docs/trace-schema.md", f)
		}
	}
	if !strings.Contains(string(doc), "lockstep.trace/v1") {
		t.Error("the schema version is not in docs/trace-schema.md")
	}
}

func collect(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			into[k] = true
			collect(x, into)
		}
	case []any:
		for _, x := range v {
			collect(x, into)
		}
	}
}

// lockstep docs DIR writes the same pages that are checked in.
func TestDocsCommand(t *testing.T) {
	wholeMatrix(t)
	dir := filepath.Join(t.TempDir(), "new", "docs")
	out := mustRun(t, "docs", dir)
	for _, s := range scenarios.All() {
		got, err := os.ReadFile(filepath.Join(dir, s.ID+".md"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(repoRoot, "docs", s.ID+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("lockstep docs wrote a different %s.md", s.ID)
		}
		if !strings.Contains(out, filepath.Join(dir, s.ID+".md")) {
			t.Errorf("output does not name %s.md:\n%s", s.ID, out)
		}
	}
}

// docs/self-check.md maps the checklist to the catalogue: it links every
// failure mode, and every link and every implementation it names exists.
func TestSelfCheckPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "self-check.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, s := range scenarios.All() {
		if !strings.Contains(page, "]("+s.ID+".md)") {
			t.Errorf("self-check.md does not link %s", s.ID)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)]+\.md)\)`).FindAllStringSubmatch(page, -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, "docs", m[1])); err != nil {
			t.Errorf("self-check.md links %s: %v", m[1], err)
		}
	}
	known := knownNames()
	for _, m := range regexp.MustCompile("`([a-z][a-z-]*)`").FindAllStringSubmatch(page, -1) {
		if !known[m[1]] && !strings.Contains(m[1], " ") {
			t.Errorf("self-check.md names %q: no such implementation, scenario or invariant", m[1])
		}
	}
}

// lockstep docs --lang zh DIR writes the same pages in Chinese: each
// lesson's Chinese title, summary and story, the matrix and the diagram in
// Chinese; docs DIR stays English (TestDocsCommand).
func TestDocsChinese(t *testing.T) {
	wholeMatrix(t)
	dir := t.TempDir()
	mustRun(t, "docs", "--lang", "zh", dir)
	english, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	pages := englishPages(t)
	if len(english) == 0 || len(pages) == 0 {
		t.Fatal("no English pages to compare with")
	}
	for name := range pages {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("docs --lang zh wrote no %s: %v", name, err)
		}
	}
	for _, s := range scenarios.All() {
		b, err := os.ReadFile(filepath.Join(dir, s.ID+".md"))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		story, _, _ := strings.Cut(strings.TrimSpace(s.Story.ZH), "\n")
		// The summary as Markdown prose.
		summary := strings.NewReplacer("*", `\*`, "_", `\_`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(s.Summary.ZH)
		for _, want := range []string{"# " + s.ID + " — " + s.Title.ZH, summary, story, "## 哪个实现挺得住",
			"```mermaid\nsequenceDiagram\n", "participant S as 库存", "## 逐步（`" + s.Naive + "`）", "| 不变量 | 结论 | 规则 |"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s.md in Chinese lacks %q", s.ID, want)
			}
		}
		for _, english := range []string{s.Title.EN, "## Which implementation survives it", "participant S as stock"} {
			if strings.Contains(page, english) {
				t.Errorf("%s.md in Chinese has English %q", s.ID, english)
			}
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "全部 " + strconv.Itoa(len(scenarios.All())*len(lockimpl.All())) + " 个组合都符合预期"; !strings.Contains(string(index), want) {
		t.Errorf("the Chinese index lacks the matrix's %q", want)
	}
	if code, _, stderr := runCLI(t, "docs", "--lang", "fr", dir); code != exitUsage || !strings.Contains(stderr, `unknown language "fr"`) {
		t.Errorf("docs --lang fr: exit %d, %q", code, stderr)
	}
}

// lockstep docs --lang zh DIR writes the self-check in Chinese too
// (issue #29): docs/self-check.md's rows, each linking the failure modes
// the English one links, and the Chinese index links it.
func TestDocsChineseSelfCheck(t *testing.T) {
	wholeMatrix(t)
	dir := t.TempDir()
	mustRun(t, "docs", "--lang", "zh", dir)
	b, err := os.ReadFile(filepath.Join(dir, "self-check.md"))
	if err != nil {
		t.Fatalf("docs --lang zh wrote no self-check.md: %v", err)
	}
	english, err := os.ReadFile(filepath.Join(repoRoot, "docs", "self-check.md"))
	if err != nil {
		t.Fatal(err)
	}
	zh, en := string(b), string(english)
	if !strings.Contains(zh, "# 自查清单") || strings.Contains(zh, "# Self-check") {
		t.Errorf("self-check.md in Chinese is not Chinese:\n%s", zh)
	}
	// The rows: their numbers, and what each links, in order.
	row := regexp.MustCompile(`(?m)^\| (\d+[a-z]?) \|.*$`)
	link := regexp.MustCompile(`\]\(([^)]+\.md)\)`)
	rows := func(page string) []string {
		var out []string
		for _, r := range row.FindAllStringSubmatch(page, -1) {
			var links []string
			for _, l := range link.FindAllStringSubmatch(r[0], -1) {
				links = append(links, l[1])
			}
			out = append(out, r[1]+" "+strings.Join(links, " "))
		}
		return out
	}
	if got, want := rows(zh), rows(en); !slices.Equal(got, want) {
		t.Errorf("the Chinese self-check's rows link\n%q\nthe English one's\n%q", got, want)
	}
	linked := func(page string) []string {
		var out []string
		for _, l := range link.FindAllStringSubmatch(page, -1) {
			out = append(out, l[1])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	if got, want := linked(zh), linked(en); !slices.Equal(got, want) {
		t.Errorf("the Chinese self-check links %v, the English one %v", got, want)
	}
	for _, l := range linked(zh) {
		if _, err := os.Stat(filepath.Join(dir, l)); err != nil {
			t.Errorf("the Chinese self-check links %s, which docs --lang zh did not write", l)
		}
	}
	for _, s := range scenarios.All() {
		if !strings.Contains(zh, "]("+s.ID+".md)") {
			t.Errorf("the Chinese self-check does not link %s", s.ID)
		}
	}
	known := knownNames()
	for _, m := range regexp.MustCompile("`([a-z][a-z-]*)`").FindAllStringSubmatch(zh, -1) {
		if !known[m[1]] {
			t.Errorf("the Chinese self-check names %q: no such implementation, scenario or invariant", m[1])
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "](self-check.md)") {
		t.Error("the Chinese index does not link self-check.md")
	}
}

// The self-check's point 5, in both languages, says what a backoff's cap
// bounds: each wait, not the total; a waiter with no limit on its attempts
// waits forever (issue #29 item 9, as the retries story says it).
func TestSelfCheckCapBoundsEachWait(t *testing.T) {
	english, err := os.ReadFile(filepath.Join(repoRoot, "docs", "self-check.md"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := checkCells(t.Context(), scenarios.All(), lockimpl.All())
	if err != nil {
		t.Fatal(err)
	}
	pages, err := report.DocPagesIn(results, "zh")
	if err != nil {
		t.Fatal(err)
	}
	for page, says := range map[string][]string{
		string(english):                {"each wait, not the total", "no limit on its attempts"},
		string(pages["self-check.md"]): {"只管每一次等待", "尝试次数没有上限"},
	} {
		row := regexp.MustCompile(`(?m)^\| 5 \|.*$`).FindString(page)
		for _, s := range says {
			if !strings.Contains(row, s) {
				t.Errorf("the self-check's point 5 does not say %q: %q", s, row)
			}
		}
	}
}

// englishPages are the English pages of docs/ as the engine produces them,
// from the matrix the package's tests share (cache_test.go).
func englishPages(t *testing.T) map[string][]byte {
	t.Helper()
	results, err := checkCells(t.Context(), scenarios.All(), lockimpl.All())
	if err != nil {
		t.Fatal(err)
	}
	pages, err := report.DocPages(results)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// knownNames are the names a page may quote in backticks: implementations,
// lessons, invariants.
func knownNames() map[string]bool {
	known := map[string]bool{}
	for _, n := range lockimpl.KnownNames() {
		known[n] = true
	}
	for _, id := range scenarios.IDs() {
		known[id] = true
	}
	for _, inv := range invariant.IDs() {
		known[inv] = true
	}
	return known
}
