package scenarios

// A lesson file's lines: split into fields with their columns, comments
// taken off, and read as the texts, key=value arguments and durations the
// verbs take.

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/text"
)

// line is one line of a lesson file, split into fields with their columns.
type line struct {
	n      int // 1-based
	indent bool
	fields []string
	cols   []int // 1-based column of each field, in characters
	raw    string
}

// splitLine splits a line at spaces and tabs, in one pass: a field is a
// slice of the line, not built up a character at a time (which took 216 s
// for a word of 900 KB).
func splitLine(n int, raw string) line {
	l := line{n: n, raw: raw}
	l.indent = raw != "" && (raw[0] == ' ' || raw[0] == '\t')
	col := 1
	start := -1 // the byte where the current field began; -1 between fields
	for i, r := range raw {
		if r == ' ' || r == '\t' {
			if start >= 0 {
				l.fields = append(l.fields, raw[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
			l.cols = append(l.cols, col)
		}
		col++
	}
	if start >= 0 {
		l.fields = append(l.fields, raw[start:])
	}
	return l
}

// uncomment drops an end-of-line comment: the first field that begins
// with # and everything after it. A line that is only a comment keeps no
// fields.
func (l line) uncomment() line {
	for i, f := range l.fields {
		if !strings.HasPrefix(f, "#") {
			continue
		}
		if i > 0 {
			l.raw = strings.TrimRight(l.raw[:byteAt(l.raw, l.cols[i])], " \t")
		}
		l.fields, l.cols = l.fields[:i], l.cols[:i]
		break
	}
	return l
}

// isText says whether l is an indented text line ("en …", "zh …"): its #
// is text, never a comment.
func (l line) isText() bool {
	return l.indent && len(l.fields) > 0 && (l.fields[0] == "en" || l.fields[0] == "zh")
}

// byteAt is the byte offset of the 1-based character column col in raw.
func byteAt(raw string, col int) int {
	c := 1
	for off := range raw {
		if c == col {
			return off
		}
		c++
	}
	return len(raw)
}

// rest is the line's text from field i on, as written.
func (l line) rest(i int) string {
	if i >= len(l.fields) {
		return ""
	}
	// Columns count characters; find the byte offset of field i.
	return strings.TrimRight(l.raw[byteAt(l.raw, l.cols[i]):], " \t")
}

// text reads the indented en and zh lines after a directive. A text is
// shown on one line: a tab in it is a space.
func (p *lessonParser) text(at line) (text.Text, error) {
	var en, zh textJoiner
	for p.i < len(p.lines) && p.lines[p.i].indent {
		l, _ := p.next()
		switch l.fields[0] {
		case "en":
			en.add(oneLine(l.rest(1)))
		case "zh":
			zh.add(oneLine(l.rest(1)))
		default:
			return text.Text{}, p.errAt(l, 0, "want an \"en\" or \"zh\" line under %s, got %q", at.fields[0], l.fields[0])
		}
	}
	t := text.Text{EN: en.b.String(), ZH: zh.b.String()}
	if t.EN == "" || t.ZH == "" {
		return t, p.errAt(at, 0, "%s needs an indented \"en\" line and a \"zh\" line below it", at.fields[0])
	}
	return t, nil
}

// textJoiner continues a text over several lines: English with a space,
// Chinese without. It writes into one builder: joining strings line by
// line copied the text so far each time.
type textJoiner struct{ b strings.Builder }

func (j *textJoiner) add(more string) {
	if j.b.Len() == 0 {
		j.b.WriteString(more)
		return
	}
	if r, _ := utf8.DecodeLastRuneInString(j.b.String()); r < 0x2E80 {
		j.b.WriteByte(' ')
	}
	j.b.WriteString(more)
}

// args reads key=value arguments from field from on; flags are keys
// without a value. Each key may appear once, and only the keys allowed.
func (p *lessonParser) args(l line, from int, allowed ...string) (map[string]string, map[string]int, error) {
	vals, at := map[string]string{}, map[string]int{}
	for i := from; i < len(l.fields); i++ {
		k, v, _ := strings.Cut(l.fields[i], "=")
		if !slices.Contains(allowed, k) {
			return nil, nil, p.errAt(l, i, "%s", unknown(text.Newf("argument of %s", "%s 的参数", l.fields[0]), k, allowed))
		}
		if _, dup := vals[k]; dup {
			return nil, nil, p.errAt(l, i, "%s given twice", k)
		}
		vals[k], at[k] = v, i
	}
	return vals, at, nil
}

// duration reads the duration v of field; none may be longer than a
// lesson may run.
func (p *lessonParser) duration(l line, field int, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, p.errAt(l, field, "want a duration such as 30s, 1.5s or 2m, got %q", v)
	}
	if d > MaxLessonHorizon {
		k, _, _ := strings.Cut(l.fields[field], "=")
		return 0, p.errAt(l, field, "%s: %s is longer than a lesson may run (%s)", k, v, dur(MaxLessonHorizon))
	}
	return d, nil
}
