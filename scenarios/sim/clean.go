package sim

import (
	"fmt"
	"strings"
	"unicode"
)

// CleanText makes text that came from outside the program — a trace file, a
// value or an error read from a server — safe to print on a terminal: every
// control character (C0, DEL, C1; newline and tab included) becomes a
// visible escape such as \x1b or \u009b, so an escape sequence cannot clear
// the screen or retitle the window. Text without control characters comes
// back unchanged.
func CleanText(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unicode.IsControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
