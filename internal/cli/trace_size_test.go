package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A trace lockstep writes within a lesson's bounds loads back (#37, item
// 3): the widest lesson's, 199 MB of JSON, was refused at 64 MiB. Its first
// 15s (10 MB) run by default; read an event at a time, loading it
// allocates about what the trace it makes holds, where reading the file
// whole first allocated twice its bytes more. The whole lesson with
// LOCKSTEP_LONG=1.
func TestWideTraceLoads(t *testing.T) {
	for _, tc := range []struct {
		horizon string
		long    bool
	}{{"15s", false}, {"5m", true}} {
		t.Run(tc.horizon, func(t *testing.T) {
			if tc.long && os.Getenv("LOCKSTEP_LONG") != "1" {
				t.Skip("LOCKSTEP_LONG=1 writes the widest lesson's 199 MB trace and loads it (1 min)")
			}
			dir := t.TempDir()
			src, err := os.ReadFile(repoPath("web/testdata/widest.lesson"))
			if err != nil {
				t.Fatal(err)
			}
			lesson := filepath.Join(dir, "widest.lesson")
			if err := os.WriteFile(lesson, []byte(strings.Replace(string(src), "horizon=5m", "horizon="+tc.horizon, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			written := mustRun(t, "play", "--lesson", lesson, "--impl", "redlock", "--format", "json")
			file := filepath.Join(dir, "widest.json")
			if err := os.WriteFile(file, []byte(written), 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			tr, err := loadTrace(context.Background(), file)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("%d bytes: %v", len(written), err)
			}
			if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(2*len(written)); got > limit {
				t.Errorf("loading %d bytes allocated %d, want at most %d", len(written), got, limit)
			}
			t.Logf("loading %d bytes, %d events, allocated %d", len(written), len(tr.Events), after.TotalAlloc-before.TotalAlloc)
			tr = nil
			if again := mustRun(t, "play", "--trace", file, "--format", "json"); again != written {
				t.Errorf("play --trace writes %d bytes, not the %d it read", len(again), len(written))
			}
		})
	}
}
