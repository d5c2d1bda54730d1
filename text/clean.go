package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes text that came from outside the program — a trace file, a
// value or an error read from a server — safe to print on a terminal: every
// character Escaped names (control characters, newline and tab included;
// bidi controls; zero-width characters) and every byte that is not UTF-8
// becomes a visible escape such as \x1b, \x0a, \u009b, \u202e or \x9b, so
// an escape sequence cannot clear the screen or retitle the window (a raw
// 0x9b byte is an 8-bit CSI to some terminals), and text cannot show in
// another order than it is stored, or hide a character. Text without any
// comes back unchanged.
func Clean(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, Escaped) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case !Escaped(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		s = s[n:]
	}
	return b.String()
}

// Escaped reports whether Clean escapes r: a control character (C0,
// DEL, C1); a bidi control (U+061C, U+200E, U+200F, U+202A to U+202E,
// U+2066 to U+2069), which has a terminal show what follows in another
// order than it is stored ("Trojan Source"); or a zero-width character
// (U+200B to U+200D, U+2060, U+FEFF), which hides between others, so that
// two names that look the same are not. Other format characters (a soft
// hyphen) are left to show as they do.
func Escaped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r < 0x061c || r > 0xfeff:
		return false
	}
	switch r {
	case 0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0xfeff:
		return true
	}
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
