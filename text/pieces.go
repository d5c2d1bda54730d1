package text

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// noBreakBefore and noBreakAfter are the punctuation a line does not
// break before, and after: closing marks hold on to what they close,
// opening marks to what they open.
const (
	noBreakBefore = "，。、；：！？）」』】》〉”’,.;:!?)]}…—"
	noBreakAfter  = "（「『【《〈“‘([{"
)

// Piece is a part of a text that a line does not break inside: a word, or
// a Chinese character with the punctuation that holds on to it. Space: a
// space comes before it (a line that breaks there drops it).
type Piece struct {
	Text  string
	Space bool
}

// Pieces splits s where a line may break: at its spaces, and next to a
// wide character (a Chinese one), which needs no space — but never before
// closing punctuation or after opening punctuation. The terminal UI and
// the command line's Chinese help wrap with it.
func Pieces(s string) []Piece {
	var out []Piece
	var cur strings.Builder
	space := false
	var prev rune
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, Piece{cur.String(), space})
			cur.Reset()
			space = false
		}
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			flush()
			space, prev = true, ' '
			continue
		}
		if cur.Len() > 0 && (isWide(prev) || isWide(r)) &&
			!strings.ContainsRune(noBreakBefore, r) && !strings.ContainsRune(noBreakAfter, prev) {
			flush()
		}
		cur.WriteRune(r)
		prev = r
	}
	flush()
	return out
}

// isWide says whether r takes two columns of a terminal.
func isWide(r rune) bool { return ansi.StringWidth(string(r)) > 1 }
