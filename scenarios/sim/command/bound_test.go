package command

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// Cut keeps a text that fits and cuts one that does not before a
// character it would split, counting the bytes it leaves out; KeptArgs
// cuts a command's long arguments only when they add up to more than
// MaxArg, and leaves out, counted, those past it.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"A#1", 3, "A#1"},
		{"A#12", 3, "A#1…(+1 bytes)"},
		{"锁锁", 4, "锁…(+3 bytes)"}, // a character is 3 bytes
		{"锁锁", 3, "锁…(+3 bytes)"},
		{"\xff\xff\xff\xff\xff", 2, "\xff\xff…(+3 bytes)"},
	} {
		if got := Cut(tc.s, tc.max); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
	// A real server's reading: the head GETRANGE sent, the size STRLEN
	// said, which may disagree when the value changed in between.
	for _, tc := range []struct {
		head string
		size int
		want string
	}{{"abc", 3, "abc"}, {"abc", 10, "abc…(+7 bytes)"}, {"abcdef", 2, "abcd…(+2 bytes)"}} {
		if got := CutHead(tc.head, tc.size, 4); got != tc.want {
			t.Errorf("CutHead(%q, %d, 4) = %q, want %q", tc.head, tc.size, got, tc.want)
		}
	}
	big := strings.Repeat("x", 1<<20)
	if c := Cut(big, MaxValue); unsafe.StringData(c) == unsafe.StringData(big) {
		t.Error("Cut returns a part of the text it cut: it keeps all of it in memory")
	}
	small := []any{"set", "k", "A#1", "px", int64(30000)}
	if got := KeptArgs(small); !slices.Equal(got, []string{"set", "k", "A#1", "px", "30000"}) {
		t.Errorf("keptArgs(%v) = %q", small, got)
	}
	script := strings.Repeat("-", 300)
	if got := KeptArgs([]any{"eval", script, "1", "k"}); got[1] != script {
		t.Errorf("keptArgs cut a script of 300 bytes from arguments of 308: %q", got[1])
	}
	if got := KeptArgs([]any{"eval", script, "1", []byte(big)}); got[1] != Cut(script, MaxValue) || got[3] != Cut(big, MaxValue) {
		t.Errorf("keptArgs kept %d and %d bytes of arguments of 300 and 1 MiB", len(got[1]), len(got[3]))
	}
	many := []any{"del"}
	for range 1000 {
		many = append(many, big[:10])
	}
	got := KeptArgs(many)
	if n := len(strings.Join(got, "")); n > MaxArg+20 || got[len(got)-1] != fmt.Sprintf("…(+%d args)", 1001-len(got)+1) {
		t.Errorf("keptArgs kept %d bytes of 1001 arguments, ending %q", n, got[len(got)-1])
	}
}
