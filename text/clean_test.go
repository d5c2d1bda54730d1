package text

import "testing"

// What comes from a file or a server reaches the terminal with its control
// characters, its bidi controls and zero-width characters, and bytes that
// are not UTF-8, escaped (a raw 0x9b is an 8-bit CSI to some terminals);
// ordinary text, Chinese included, is unchanged.
func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"lock:product:1001", "lock:product:1001"},
		{"A 的看门狗续期", "A 的看门狗续期"},
		{"\x1b[2J\x1b]0;owned\x07", `\x1b[2J\x1b]0;owned\x07`},
		{"line\nnext\ttab", `line\x0anext\x09tab`},
		{"a\u009b31mb", `a\u009b31mb`},
		{"raw \x9b31m byte", `raw \x9b31m byte`},
		{"\xff\xfe", `\xff\xfe`},
		{"\x7f", `\x7f`},
		// Bidi controls reorder what a terminal shows ("Trojan Source"),
		// zero-width characters hide text: escaped, as \uXXXX (#26).
		{"lock:\u202eevil", `lock:\u202eevil`},
		{"\u202a\u202b\u202c\u202d", `\u202a\u202b\u202c\u202d`},
		{"\u2066A\u2067B\u2068C\u2069", `\u2066A\u2067B\u2068C\u2069`},
		{"\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"A\u200bB\u200cC\u200dD\u2060E\ufeffF", `A\u200bB\u200cC\u200dD\u2060E\ufeffF`},
		// Other format characters and Arabic text stay.
		{"soft\u00adhyphen العربية", "soft\u00adhyphen العربية"},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
