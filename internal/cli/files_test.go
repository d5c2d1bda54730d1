package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// What --trace, --lesson, --lessons and --course name must be a file, not
// a directory or a device: reading /dev/zero as a trace read 64 MiB of
// zeros before it was refused, /dev/null as a lesson was "an empty
// lesson" (#26). A named pipe, which blocked for good, is in
// files_unix_test.go.
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	dirLessons := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirLessons, "010-dir.lesson"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--trace", dir}, dir + " is a directory, not a trace file"},
		{[]string{"play", "--trace", os.DevNull}, os.DevNull + " is a device, not a trace file"},
		{[]string{"--trace", "/dev/zero"}, "/dev/zero is a device, not a trace file"},
		{[]string{"play", "--lesson", os.DevNull}, os.DevNull + " is a device, not a lesson file"},
		{[]string{"check", "--lessons", dirLessons}, filepath.Join(dirLessons, "010-dir.lesson") + " is a directory, not a lesson file"},
		{[]string{"--course", os.DevNull}, os.DevNull + " is a device, not a course file"},
		{[]string{"--course", dir}, dir + " is a directory, not a course file"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("lockstep %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// A trace file over the limit is refused from its size, before a byte of
// it is read: a sparse file of 64 MiB and one byte was read whole first
// (#26).
func TestLargeTraceRefusedUnread(t *testing.T) {
	name := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxTraceSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = loadTrace(context.Background(), name)
	runtime.ReadMemStats(&after)
	if want := name + ": larger than 1024 MiB (1073741825 bytes), the most a trace file may be"; err == nil || err.Error() != want {
		t.Errorf("loadTrace: %v, want %q", err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing the file allocated %d bytes: it was read", got)
	}
}

// A trace that grows while it is read is still cut at the limit: the
// reader reads through a LimitReader, whatever the size said. Here a valid
// trace followed by more white space than the limit (a mebibyte here)
// allows.
func TestTraceReadToTheLimit(t *testing.T) {
	grown := io.MultiReader(strings.NewReader(mustJSON(t, engineTrace(t))), bytes.NewReader(bytes.Repeat([]byte(" "), 1<<20)))
	_, err := readTraceUpTo(context.Background(), grown, "growing.json", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "growing.json: larger than 1 MiB") {
		t.Errorf("readTrace: %v", err)
	}
	_, err = readTraceUpTo(context.Background(), bytes.NewReader(make([]byte, 1<<20+1)), "zeros.json", 1<<20)
	if err == nil || !strings.Contains(err.Error(), "zeros.json: larger than 1 MiB") {
		t.Errorf("readTrace: %v", err)
	}
}

// A lesson or course file saved with a byte-order mark reads as one
// without (#26).
func TestByteOrderMarkFiles(t *testing.T) {
	dir, lesson := myLesson(t, nil)
	src, err := os.ReadFile(lesson)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lesson, append([]byte("\ufeff"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	course := filepath.Join(dir, "week3.course")
	if err := os.WriteFile(course, []byte("\ufeffcourse Week 3\r\nlessons .\r\nlesson my-get-then-del\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "play", "--lesson", lesson); !strings.Contains(out, "my-get-then-del") {
		t.Errorf("play --lesson with a BOM:\n%s", out)
	}
	if code, out, stderr := runCLI(t, "--course", course); code != exitOK || !strings.Contains(out, "usage:") {
		t.Errorf("--course with a BOM: exit %d, stderr %q", code, stderr)
	}
}
