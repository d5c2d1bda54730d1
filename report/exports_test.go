package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/lockstep-sim/lockstep/internal/race"
	"github.com/lockstep-sim/lockstep/scenarios"
)

var matrix = sync.OnceValues(scenarios.Check)

func cells(t *testing.T) []scenarios.Result {
	t.Helper()
	results, err := matrix()
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// Every format works for every cell, in both languages (under the race
// detector, for a sample of the cells: race.Sampled).
func TestEveryFormatEveryCell(t *testing.T) {
	for i, r := range cells(t) {
		if !race.Sampled(i) {
			continue
		}
		for _, lang := range []string{"en", "zh"} {
			name := r.Scenario + "/" + r.Impl + "/" + lang
			md := render(t, func(w *bytes.Buffer) error { return Handout(w, r.Trace, lang) })
			checkHandout(t, name, md, r.Trace)
			mm := render(t, func(w *bytes.Buffer) error { return Mermaid(w, r.Trace, lang) })
			checkMermaid(t, name, mm, r.Trace)
			text := render(t, func(w *bytes.Buffer) error { return Timeline(w, r.Trace, lang) })
			if n := strings.Count(text, "✗ "); n < len(r.Broken) {
				t.Errorf("%s: text timeline shows %d violations for %v", name, n, r.Broken)
			}
		}
		var back trace.Trace
		if err := json.Unmarshal([]byte(render(t, func(w *bytes.Buffer) error { return JSON(w, r.Trace) })), &back); err != nil {
			t.Fatalf("%s/%s: JSON: %v", r.Scenario, r.Impl, err)
		}
		if back.Schema != trace.TraceSchema || len(back.Events) != len(r.Trace.Events) || !slices.Equal(back.Broken(), r.Broken) {
			t.Errorf("%s/%s: JSON round trip lost the trace", r.Scenario, r.Impl)
		}
	}
}

func checkHandout(t *testing.T, name, md string, tr *trace.Trace) {
	t.Helper()
	rows := 0
	for line := range strings.Lines(md) {
		if regexp.MustCompile(`^\| \d+ \| `).MatchString(line) {
			rows++
			// Five cells, pipes inside them escaped.
			if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)); n != 6 {
				t.Fatalf("%s: step row with %d separators: %q", name, n, line)
			}
		}
	}
	if rows != len(tr.Events) {
		t.Errorf("%s: %d step rows, %d events", name, rows, len(tr.Events))
	}
	for _, v := range tr.Verdicts {
		if !strings.Contains(md, "`"+v.Invariant+"`") {
			t.Errorf("%s: no outcome row for %s", name, v.Invariant)
		}
	}
}

// checkMermaid checks the shape of a diagram: every participant declared
// before use, every command a request and a reply, every violation on a red
// band, and no raw ";" or "#" in text (they end a statement or start an
// entity in Mermaid; entity codes such as #59; are how text writes them).
// The CI check runs Mermaid's own parser over them.
func checkMermaid(t *testing.T, name, mm string, tr *trace.Trace) {
	t.Helper()
	entity := regexp.MustCompile(`#\d+;`)
	lines := strings.Split(strings.TrimSuffix(mm, "\n"), "\n")
	if lines[0] != "sequenceDiagram" {
		t.Fatalf("%s: starts with %q", name, lines[0])
	}
	declared := map[string]bool{}
	msg := regexp.MustCompile(`^    (\w+)(->>|-->>|--x|-x)(\w+): (.*)$`)
	note := regexp.MustCompile(`^    Note over (\w+)(,(\w+))?: (.*)$`)
	requests, rects := 0, 0
	for _, l := range lines[1:] {
		var text string
		switch {
		case strings.HasPrefix(l, "    participant "):
			declared[strings.Fields(l)[1]] = true
			continue
		case l == "    rect rgb(255, 210, 210)":
			rects++
			continue
		case l == "    end":
			continue
		case msg.MatchString(l):
			m := msg.FindStringSubmatch(l)
			if !declared[m[1]] || !declared[m[3]] {
				t.Fatalf("%s: undeclared participant in %q", name, l)
			}
			if m[2] == "->>" && strings.HasPrefix(m[3], "R") {
				requests++
			}
			text = m[4]
		case note.MatchString(l):
			m := note.FindStringSubmatch(l)
			if !declared[m[1]] || m[3] != "" && !declared[m[3]] {
				t.Fatalf("%s: undeclared participant in %q", name, l)
			}
			text = m[4]
		default:
			t.Fatalf("%s: unexpected line %q", name, l)
		}
		if strings.ContainsAny(entity.ReplaceAllString(text, ""), "#;") {
			t.Fatalf("%s: unescaped # or ; in %q", name, l)
		}
	}
	commands, violations := 0, 0
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.KindCommand:
			commands++
		case trace.KindViolation:
			violations++
		}
	}
	if requests != commands || rects != violations {
		t.Errorf("%s: %d requests for %d commands, %d red bands for %d violations", name, requests, commands, rects, violations)
	}
}

func TestJUnit(t *testing.T) {
	results := cells(t)
	// One unmet and one skipped cell, as a broken implementation and a run
	// on too few servers would give.
	results[0].Pass, results[0].Broken = false, []string{}
	results[1].Skipped = "needs 5 servers in --redis"
	out := render(t, func(w *bytes.Buffer) error { return JUnit(w, results) })
	type tc struct {
		Name      string `xml:"name,attr"`
		Classname string `xml:"classname,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []tc   `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	if doc.Tests != len(results) || doc.Failures != 1 || doc.Skipped != 1 {
		t.Errorf("tests %d failures %d skipped %d", doc.Tests, doc.Failures, doc.Skipped)
	}
	if len(doc.Suites) != len(scenarios.All()) {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	first := doc.Suites[0].Cases[0]
	if first.Failure == nil || !strings.Contains(first.Failure.Message, "expected "+list(results[0].Expected)+" to break, got {}") ||
		!strings.Contains(first.Failure.Body, "lockstep play "+results[0].Scenario+" --impl "+results[0].Impl) {
		t.Errorf("failure case = %+v", first)
	}
	if s := doc.Suites[0].Cases[1].Skipped; s == nil || s.Message != "needs 5 servers in --redis" {
		t.Errorf("skipped case = %+v", doc.Suites[0].Cases[1])
	}
}

// Every line a user reads exists in both languages, and the Chinese one is
// Chinese: no empty or untranslated narration anywhere in the matrix.
func TestEveryTextInBothLanguages(t *testing.T) {
	hasHan := func(s string) bool {
		for _, r := range s {
			if unicode.Is(unicode.Han, r) {
				return true
			}
		}
		return false
	}
	check := func(where string, x text.Text) {
		t.Helper()
		switch {
		case x.EN == "" || x.ZH == "":
			t.Errorf("%s: empty text %+v", where, x)
		case !hasHan(x.ZH):
			t.Errorf("%s: Chinese text is not Chinese: %q", where, x.ZH)
		}
	}
	for _, s := range scenarios.All() {
		check(s.ID+" title", s.Title)
		check(s.ID+" summary", s.Summary)
	}
	for _, inv := range invariant.Infos() {
		check(inv.ID+" rule", inv.Rule)
	}
	for _, r := range cells(t) {
		for _, e := range r.Trace.Events {
			where := r.Scenario + "/" + r.Impl + " step " + strings.TrimSpace(e.Text.EN)
			check(where, e.Text)
			if (e.Short.EN == "") != (e.Short.ZH == "") {
				t.Errorf("%s: short label in one language only: %+v", where, e.Short)
			}
		}
		for _, v := range r.Trace.Verdicts {
			if v.Broken {
				check(r.Scenario+"/"+r.Impl+" "+v.Invariant, v.Reason)
			}
		}
	}
}

// TestWriteMermaidForCI writes every cell's diagram, in both languages, to
// $LOCKSTEP_MERMAID_DIR, for .ci/run to check with Mermaid's own parser
// (.ci/mermaid-check), and beside them the diagrams of hostile names
// (hostile_test.go): a lesson's clients named like Mermaid's keywords and
// ids, a trace's names full of Mermaid's syntax, whole and as a slide.
// Without the variable it has nothing to do.
func TestWriteMermaidForCI(t *testing.T) {
	dir := os.Getenv("LOCKSTEP_MERMAID_DIR")
	if dir == "" {
		t.Skip("skipped: set LOCKSTEP_MERMAID_DIR to write the diagrams for .ci/mermaid-check")
	}
	write := func(file string, f func(w *bytes.Buffer) error) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(render(t, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range cells(t) {
		for _, lang := range []string{"en", "zh"} {
			write(r.Scenario+"_"+r.Impl+"_"+lang+".mmd", func(w *bytes.Buffer) error { return Mermaid(w, r.Trace, lang) })
		}
	}
	lesson, hostile := hostileLessonTrace(t), hostileTrace()
	for _, lang := range []string{"en", "zh"} {
		write("hostile-lesson_"+lang+".mmd", func(w *bytes.Buffer) error { return Mermaid(w, lesson, lang) })
		write("hostile-trace_"+lang+".mmd", func(w *bytes.Buffer) error { return Mermaid(w, hostile, lang) })
		write("hostile-trace-steps_"+lang+".mmd", func(w *bytes.Buffer) error { return MermaidSteps(w, hostile, lang, 1, 8) })
	}
}

// check says a real-server cell is untrusted when it kept to its clock less
// evenly than its margins after its slower runs (#37 item 11: such a
// verdict is not a pass), marks it "~", and counts it apart from the cells
// that meet their expectation; a cell within its margins it leaves alone.
func TestMatrixSaysACellIsUntrusted(t *testing.T) {
	results := slices.Clone(cells(t)) // cells' results are shared
	results[0].Drift, results[0].Margin, results[0].Untrusted, results[0].Pass = 16*time.Millisecond, 15*time.Millisecond, true, false
	results[1].Drift, results[1].Margin = 14*time.Millisecond, 15*time.Millisecond
	out := render(t, func(w *bytes.Buffer) error { return Matrix(w, results, "en") })
	assertContains(t, out, "UNTRUSTED "+results[0].Scenario+" × "+results[0].Impl+" kept to its clock only within 16ms, more than its 15ms margins, slower runs included")
	assertContains(t, out, fmt.Sprintf("1 of %d cells untrusted (~), none unmet", len(results)))
	assertLacks(t, out, "UNTRUSTED "+results[1].Scenario+" × "+results[1].Impl)
	assertLacks(t, out, "UNMET "+results[0].Scenario+" × "+results[0].Impl)
}
