package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Ctrl-C and SIGTERM reach runs on embedded servers too: check and play
// on them stop with "interrupted" and exit 2, as on real servers; before,
// they ran to the end (#26). The signal is the cancelled context that
// Main's signal.NotifyContext gives, with the signal as its cause,
// which is said once.
func TestEmbeddedRunsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalCause("terminated signal received"))
	dir, lesson := myLesson(t, nil)
	for _, args := range [][]string{
		{"check"},
		{"check", "--lessons", dir},
		{"play", "get-then-del"},
		{"play", "--lesson", lesson, "--format", "json"},
		// An interrupted search is interrupted, not "stopped by the
		// timeout" with exit 0 (#37, item 7).
		{"explore", "--impl", "uuid-lua"},
		{"explore", "--impl", "uuid-lua", "--json"},
	} {
		var stdout, stderr bytes.Buffer
		code := runCtx(ctx, args, &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != "lockstep: interrupted (terminated signal received)\n" {
			t.Errorf("lockstep %s, interrupted: exit %d, stdout %d bytes, stderr %q; want exit 2 and \"interrupted\"",
				strings.Join(args, " "), code, stdout.Len(), stderr.String())
		}
	}
}

// signalCause is the cause signal.NotifyContext gives its context.
type signalCause string

func (s signalCause) Error() string        { return string(s) }
func (s signalCause) Is(target error) bool { return target == context.Canceled }
