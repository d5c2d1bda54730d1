//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe given as a trace, a lesson or a course is refused at once:
// opening one for reading waited for a writer, for good and deaf to
// signals (#26). The pipe here never gets a writer: before the fix, this
// test hung until go test's timeout.
func TestNamedPipesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return path
	}
	trace, lesson, course := fifo("trace.json"), fifo("010-pipe.lesson"), fifo("week.course")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--trace", trace}, trace + " is a named pipe, not a trace file"},
		{[]string{"--trace", trace}, trace + " is a named pipe, not a trace file"},
		{[]string{"play", "--lesson", lesson}, lesson + " is a named pipe, not a lesson file"},
		{[]string{"check", "--lessons", dir}, lesson + " is a named pipe, not a lesson file"},
		{[]string{"--lessons", dir}, lesson + " is a named pipe, not a lesson file"},
		{[]string{"--course", course}, course + " is a named pipe, not a course file"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("lockstep %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}
