package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzCommandLine: whatever is typed, lockstep answers with an exit code of
// 0, 1 or 2, an error on stderr for 2, and never a control character that a
// terminal would act on (an unknown flag is echoed, escaped). Commands that
// write files, search at length or reach the network are left out: the
// target is the parsing, not the runs; so are shell completion's, whose
// output is a script or tab-separated candidates.
func FuzzCommandLine(f *testing.F) {
	for _, seed := range []string{
		"list", "list --lang zh", "play get-then-del", "play get-then-del --impl uuid-lua --format md",
		"play --format mermaid setnx-no-ex", "play nope", "play get-then-del --impl nope --lang zh",
		"--speed NaN", "--scenario gc-pause --impl fenced", "play --trace /nonexistent.json",
		"play get-then-del --\x1b[2J", "help", "bogus", "play -- --impl", "--lang xx",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		for _, a := range args {
			for _, skip := range []string{"redis", "replica", "junit", "out", "docs", "check", "explore", "complet"} {
				if strings.Contains(strings.ToLower(a), skip) {
					return
				}
			}
		}
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if !slices.Contains([]int{exitOK, exitUnmet, exitUsage}, code) {
			t.Fatalf("lockstep %q: exit %d", args, code)
		}
		if code == exitUsage && !strings.HasPrefix(stderr.String(), "lockstep: ") {
			t.Errorf("lockstep %q: exit 2 with stderr %q", args, stderr.String())
		}
		for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if i := strings.IndexFunc(out, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }); i >= 0 {
				t.Errorf("lockstep %q: %s has control character %q at %d", args, name, out[i:min(i+8, len(out))], i)
			}
		}
	})
}
