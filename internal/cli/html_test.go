package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/web"
)

// play --format html writes one page under 2 MB that embeds the run as
// play --format json prints it, and the lesson's fix beside it.
func TestPlayHTML(t *testing.T) {
	page := mustRun(t, "play", "get-then-del", "--impl", "uuid-get-del", "--format", "html")
	if len(page) >= 2<<20 {
		t.Errorf("the page is %d bytes, want under 2 MB", len(page))
	}
	for _, ref := range []string{"http://", "https://", "src="} {
		if strings.Contains(page, ref) {
			t.Errorf("the page holds %q", ref)
		}
	}
	traces, order, err := web.EmbeddedTraces([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "uuid-get-del,uuid-lua" {
		t.Errorf("the page embeds %v, want the run and the lesson's fix", order)
	}
	want := mustRun(t, "play", "get-then-del", "--impl", "uuid-get-del", "--format", "json")
	if !sameJSON(t, traces["uuid-get-del"], []byte(want)) {
		t.Error("the page's trace differs from play --format json's")
	}
	fix := mustRun(t, "play", "get-then-del", "--impl", "uuid-lua", "--format", "json")
	if !sameJSON(t, traces["uuid-lua"], []byte(fix)) {
		t.Error("the page's second trace differs from play --impl uuid-lua --format json's")
	}
}

// play --trace FILE --format html holds the file's run alone.
func TestPlayTraceHTML(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.json")
	js := mustRun(t, "play", "gc-pause", "--format", "json")
	if err := os.WriteFile(file, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	page := mustRun(t, "play", "--trace", file, "--format", "html", "--lang", "zh")
	traces, order, err := web.EmbeddedTraces([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 1 || !sameJSON(t, traces[order[0]], []byte(js)) {
		t.Errorf("the page embeds %v, want the file's trace alone", order)
	}
	if !strings.Contains(page, `<html lang="zh-Hans">`) {
		t.Error("--lang zh does not open the page in Chinese")
	}
}

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

// A run too long for a player page (more than web.MaxPageJSON of trace
// JSON) is refused, exit 2, saying the budget and what writes it instead;
// stdout stays empty. Here a saved trace whose narration is 12 MiB of <,
// each \u003c in the page's JSON.
func TestPlayHTMLTooLong(t *testing.T) {
	js := mustRun(t, "play", "get-then-del", "--format", "json")
	var tr map[string]any
	if err := json.Unmarshal([]byte(js), &tr); err != nil {
		t.Fatal(err)
	}
	tr["events"].([]any)[0].(map[string]any)["text"].(map[string]any)["en"] = strings.Repeat("<", 12<<20)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the file holds < as it is
	if err := enc.Encode(tr); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "long.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "play", "--trace", file, "--format", "html")
	if code != exitUsage || stdout != "" {
		t.Errorf("exit %d, %d bytes on stdout; want exit %d and none", code, len(stdout), exitUsage)
	}
	for _, want := range []string{"at most 64 MiB", "--format text", "json"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// A run whose page would pass the budget with its fix beside it holds
// the run alone, and says so.
func TestHTMLPageLeavesTheFixOut(t *testing.T) {
	s, _ := scenarios.Lookup("get-then-del")
	run := func(impl string) *trace.Trace {
		info, _ := lockimpl.Lookup(impl)
		tr, err := s.Run(info)
		if err != nil {
			t.Fatal(err)
		}
		tr.Events[0].Text.EN = strings.Repeat("x", web.MaxPageJSON*2/3)
		return tr
	}
	var page, note bytes.Buffer
	if err := writePage(&page, &note, []*trace.Trace{run("uuid-get-del"), run("uuid-lua")}, "en"); err != nil {
		t.Fatal(err)
	}
	if _, order, err := web.EmbeddedTraces(page.Bytes()); err != nil || strings.Join(order, ",") != "uuid-get-del" {
		t.Errorf("the page embeds %v (%v), want the run alone", order, err)
	}
	if !strings.Contains(note.String(), "uuid-lua") || !strings.Contains(note.String(), "64 MiB") {
		t.Errorf("stderr: %q, want the fix left out named, and the budget", note.String())
	}
}
