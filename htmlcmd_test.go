package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

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
