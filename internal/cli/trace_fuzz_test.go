package cli

import (
	"bytes"
	"context"
	"testing"
)

// FuzzLoadTrace: whatever bytes a trace file holds, loading it either fails
// with an error that prints safely or gives a trace that every format
// renders, in both languages, without a control character other than
// newline and tab. The seeds (testdata/fuzz/FuzzLoadTrace) are real traces
// — play get-then-del --format json, the explorer's set-nx-ex
// counterexample, a small hand-made one — and malformed ones.
func FuzzLoadTrace(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := readTrace(context.Background(), bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if bad := controls(err.Error()); len(bad) > 0 {
				t.Fatalf("the error has control characters %v: %q", bad, err)
			}
			return
		}
		for _, format := range formats {
			for _, lang := range []string{"en", "zh"} {
				var out bytes.Buffer
				if err := render(&out, tr, format, lang); err != nil {
					t.Fatalf("--format %s --lang %s: %v", format, lang, err)
				}
				if bad := controls(out.String()); len(bad) > 0 {
					t.Fatalf("--format %s --lang %s: control characters %v in\n%q", format, lang, bad, out.String())
				}
			}
		}
	})
}
