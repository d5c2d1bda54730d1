package web

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Markdown renders the little Markdown that lessons' stories and the
// self-check use: paragraphs, headings, lists, tables, fenced code, and
// inside a line `code`, **bold**, *emphasis* and [links](target). Every
// text is escaped; link maps a link's target to the page's (false: the
// text stays, unlinked), nil keeps no link at all. It is no general
// Markdown renderer, and need not be: its input is the project's own.
func Markdown(src string, link func(string) (string, bool)) string {
	var out strings.Builder
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(src), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); {
		i = block(&out, lines, i, link)
	}
	return out.String()
}

// block renders the block that starts at lines[i] and returns the line
// after it.
func block(out *strings.Builder, lines []string, i int, link func(string) (string, bool)) int {
	line := lines[i]
	switch {
	case strings.TrimSpace(line) == "":
		return i + 1
	case strings.HasPrefix(line, "<!--"): // a comment: not shown
		j := i
		for j < len(lines) && !strings.Contains(lines[j], "-->") {
			j++
		}
		return j + 1
	case strings.HasPrefix(line, "```"):
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		out.WriteString("<pre><code>" + html.EscapeString(strings.Join(lines[i+1:j], "\n")) + "</code></pre>\n")
		return j + 1
	case strings.HasPrefix(line, "#"):
		level := len(line) - len(strings.TrimLeft(line, "#"))
		tag := "h" + string(rune('0'+min(level+1, 6)))
		out.WriteString("<" + tag + ">" + inline(strings.TrimSpace(line[level:]), link) + "</" + tag + ">\n")
		return i + 1
	case strings.HasPrefix(line, "|"):
		j := run(lines, i, func(l string) bool { return strings.HasPrefix(l, "|") })
		table(out, lines[i:j], link)
		return j
	case strings.HasPrefix(line, "- "):
		j := run(lines, i, func(l string) bool { return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "  ") })
		list(out, lines[i:j], link)
		return j
	}
	j := run(lines, i, func(l string) bool {
		return strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "```")
	})
	out.WriteString("<p>" + inline(joinLines(lines[i:j]), link) + "</p>\n")
	return j
}

// joinLines joins a paragraph's lines: with a space, but not between two
// Chinese characters, where a line break is no space.
func joinLines(lines []string) string {
	var b strings.Builder
	for n, l := range lines {
		l = strings.TrimSpace(l)
		if n > 0 {
			prev, _ := utf8.DecodeLastRuneInString(b.String())
			next, _ := utf8.DecodeRuneInString(l)
			if prev < utf8.RuneSelf || next < utf8.RuneSelf {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// run is the end of the lines from i on that keep to in.
func run(lines []string, i int, in func(string) bool) int {
	j := i + 1
	for j < len(lines) && in(lines[j]) {
		j++
	}
	return j
}

func list(out *strings.Builder, lines []string, link func(string) (string, bool)) {
	var items []string
	for _, l := range lines {
		if strings.HasPrefix(l, "- ") {
			items = append(items, l[2:])
		} else {
			items[len(items)-1] += " " + strings.TrimSpace(l)
		}
	}
	out.WriteString("<ul>\n")
	for _, it := range items {
		out.WriteString("<li>" + inline(it, link) + "</li>\n")
	}
	out.WriteString("</ul>\n")
}

// table is a table with a header row. Each cell is labelled with its
// column's name (data-label), which a narrow screen shows beside it, a row
// a card (player.css); the roles keep it a table to a screen reader when
// its display is not one.
func table(out *strings.Builder, rows []string, link func(string) (string, bool)) {
	out.WriteString("<div class=\"scroll\"><table role=\"table\">\n")
	var labels []string
	for n, r := range rows {
		if n == 1 && strings.Trim(r, "|-: ") == "" {
			continue // the separator
		}
		if n == 0 {
			out.WriteString("<thead role=\"rowgroup\"><tr role=\"row\">")
			for _, c := range cells(r) {
				h := inline(strings.TrimSpace(c), link)
				labels = append(labels, html.EscapeString(plain(h)))
				out.WriteString("<th role=\"columnheader\">" + h + "</th>")
			}
			out.WriteString("</tr></thead>\n<tbody role=\"rowgroup\">\n")
			continue
		}
		out.WriteString("<tr role=\"row\">")
		for i, c := range cells(r) {
			label := ""
			if i < len(labels) && labels[i] != "" {
				label = ` data-label="` + labels[i] + `"`
			}
			out.WriteString("<td role=\"cell\"" + label + ">" + inline(strings.TrimSpace(c), link) + "</td>")
		}
		out.WriteString("</tr>\n")
	}
	out.WriteString("</tbody></table></div>\n")
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// plain is the text of inline HTML.
func plain(h string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(h, ""))
}

// cells splits a table row at its pipes, but not at an escaped one (\|).
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	parts := strings.Split(strings.ReplaceAll(row, `\|`, "\x00"), "|")
	for i := range parts {
		parts[i] = strings.ReplaceAll(parts[i], "\x00", "|")
	}
	return parts
}

var inlineRE = regexp.MustCompile("`[^`]*`|\\*\\*[^*]+\\*\\*|\\*[^*]+\\*|\\[[^\\]]+\\]\\([^)]+\\)")

// inline renders a line's code spans, emphasis and links; the rest is
// escaped text.
func inline(s string, link func(string) (string, bool)) string {
	var out strings.Builder
	last := 0
	for _, m := range inlineRE.FindAllStringIndex(s, -1) {
		out.WriteString(html.EscapeString(s[last:m[0]]))
		out.WriteString(span(s[m[0]:m[1]], link))
		last = m[1]
	}
	out.WriteString(html.EscapeString(s[last:]))
	return out.String()
}

func span(tok string, link func(string) (string, bool)) string {
	switch {
	case strings.HasPrefix(tok, "`"):
		return "<code>" + html.EscapeString(strings.Trim(tok, "`")) + "</code>"
	case strings.HasPrefix(tok, "**"):
		return "<strong>" + inline(tok[2:len(tok)-2], link) + "</strong>"
	case strings.HasPrefix(tok, "*"):
		return "<em>" + inline(tok[1:len(tok)-1], link) + "</em>"
	}
	mid := strings.Index(tok, "](")
	label, target := inline(tok[1:mid], link), tok[mid+2:len(tok)-1]
	if link == nil {
		return label
	}
	href, ok := link(target)
	if !ok {
		return label
	}
	return "<a href=\"" + html.EscapeString(href) + "\">" + label + "</a>"
}
