package scenarios

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// traceSums is one line per cell, "<scenario> <impl> <sha256 of the trace's
// JSON>", as the Go timelines produced them before the lessons became files
// (LOCKSTEP_WRITE_TRACE_SUMS=1 wrote it). The lesson files must replay them
// byte for byte.
const traceSumsFile = "testdata/traces.sha256"

func traceSums(t *testing.T) string {
	t.Helper()
	results := sharedCheck(t)
	var b strings.Builder
	for _, r := range results {
		data, err := json.Marshal(r.Trace)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %x\n", r.Scenario, r.Impl, sha256.Sum256(data))
	}
	return b.String()
}

// The twelve failure modes that were Go timelines replay byte for byte from
// their lesson files.
func TestLessonFilesReplayTheGoTimelines(t *testing.T) {
	got := traceSums(t)
	if os.Getenv("LOCKSTEP_WRITE_TRACE_SUMS") == "1" {
		if err := os.WriteFile(traceSumsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(traceSumsFile)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	have := map[string]bool{}
	for _, l := range gotLines {
		have[l] = true
	}
	for _, l := range wantLines {
		if l != "" && !have[l] {
			t.Errorf("cell's trace differs from the Go timeline's: %s", l)
		}
	}
}
