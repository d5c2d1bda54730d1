package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
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
