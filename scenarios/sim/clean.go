package sim

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanText makes text that came from outside the program — a trace file, a
// value or an error read from a server — safe to print on a terminal: every
// control character (C0, DEL, C1; newline and tab included) and every byte
// that is not UTF-8 becomes a visible escape such as \x1b, \x0a, \u009b or \x9b,
// so an escape sequence cannot clear the screen or retitle the window (a raw
// 0x9b byte is an 8-bit CSI to some terminals). Text without either comes
// back unchanged.
func CleanText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case !unicode.IsControl(r):
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
