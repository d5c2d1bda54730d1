package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/text"
)

// wrapItems lays items out on lines of at most w columns (terminal cells: a
// Chinese character takes two), joined by sep, breaking only between items:
// a file name or a key's help is never cut in two. An item wider than w
// alone is cut at w.
func wrapItems(items []string, sep string, w int) []string {
	var lines []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case ansi.StringWidth(line+sep+it) <= w:
			line += sep + it
		default:
			lines = append(lines, line)
			line = it
		}
		for ansi.StringWidth(line) > w {
			lines = append(lines, ansi.Cut(line, 0, w))
			line = ansi.Cut(line, w, ansi.StringWidth(line))
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// wrapHanging is wrapItems with the lines after the first indented by
// indent, so that a wrapped line reads as one.
func wrapHanging(items []string, sep string, w int, indent string) []string {
	n, line := 0, ""
	for ; n < len(items); n++ {
		next := items[n]
		if line != "" {
			next = line + sep + items[n]
		}
		if line != "" && ansi.StringWidth(next) > w {
			break
		}
		line = next
	}
	lines := wrapItems([]string{line}, "", w)
	for _, l := range wrapItems(items[n:], sep, w-ansi.StringWidth(indent)) {
		lines = append(lines, indent+l)
	}
	return lines
}

// wrapWords wraps s at its spaces only (lipgloss would break a file name at
// its hyphens).
func wrapWords(s string, w int) []string {
	return wrapItems(strings.Split(s, " "), " ", w)
}

// helpLine is the one-line key help in w columns.
func helpLine(hm help.Model, keys []key.Binding, w int) string {
	return helpLines(hm, keys, w, 1)
}

// helpLines is the key help on at most n lines of w columns, measured in
// terminal cells. When not every key fits, the ones before the last two go
// first, so "? help" and "q quit" always show.
func helpLines(hm help.Model, keys []key.Binding, w, n int) string {
	var items []string
	for _, b := range keys {
		if !b.Enabled() {
			continue
		}
		items = append(items, hm.Styles.ShortKey.Render(b.Help().Key)+" "+hm.Styles.ShortDesc.Render(b.Help().Desc))
	}
	sep := hm.Styles.ShortSeparator.Render(" • ")
	for len(items) > 2 && len(wrapItems(items, sep, w)) > n {
		items = slices.Delete(items, len(items)-3, len(items)-2)
	}
	lines := wrapItems(items, sep, w)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// trimBeforeEllipsis is what a cut text drops at its end before the "…".
const trimBeforeEllipsis = " ,;:，；：、。—"

// joinPiece is line with p after it.
func joinPiece(line string, p text.Piece) string {
	if line != "" && p.Space {
		return line + " " + p.Text
	}
	return line + p.Text
}

// wrapText wraps s to lines of at most w columns, breaking where text.Pieces
// says a line may break, on at most n lines: where s needs more, the last
// ends with "…", cut where a line may break (a word wider than a line
// alone is cut in it, with the "…"). Unlike lipgloss, it breaks neither a
// file name at its hyphens nor an English word in Chinese text.
func wrapText(s string, w, n int) []string {
	ps := text.Pieces(s)
	var lines []string
	for len(ps) > 0 && len(lines) < n-1 {
		line, i := "", 0
		for ; i < len(ps); i++ {
			next := joinPiece(line, ps[i])
			if line != "" && ansi.StringWidth(next) > w {
				break
			}
			line = next
		}
		lines = append(lines, ansi.Truncate(line, w, "…"))
		ps = ps[i:]
	}
	if len(ps) > 0 {
		lines = append(lines, cutPieces(ps, w))
	}
	return lines
}

// cutAtWord is s on one line of w columns: whole where it fits, else cut
// where a line may break, with "…".
func cutAtWord(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return cutPieces(text.Pieces(s), w)
}

// cutPieces is ps on one line of w columns, cut with "…" where they do
// not fit.
func cutPieces(ps []text.Piece, w int) string {
	line := ""
	for _, p := range ps {
		line = joinPiece(line, p)
	}
	if ansi.StringWidth(line) <= w {
		return line
	}
	line = ""
	for _, p := range ps {
		next := joinPiece(line, p)
		if ansi.StringWidth(strings.TrimRight(next, trimBeforeEllipsis)+"…") > w {
			break
		}
		line = next
	}
	if line = strings.TrimRight(line, trimBeforeEllipsis); line == "" {
		// Its first word alone is wider than the line.
		return ansi.Truncate(ps[0].Text, w, "…")
	}
	return line + "…"
}
