package tui

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// noSpace is s without its white space: a text wrapped onto lines reads
// the same whatever the lines' breaks were.
func noSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// wide reports whether r takes two columns (a Chinese character): a line
// may break before or after one.
func wide(r rune) bool { return ansi.StringWidth(string(r)) == 2 }

// trimmedBeforeEllipsis is what a cut may drop at its end before the …:
// "B retries," reads "B retries…".
const trimmedBeforeEllipsis = ",;:，；：、。—"

// cutWell says what is wrong with shown as full fitted to fewer columns:
// nothing when it is full whole, or the start of full cut where a line may
// break (a space, or next to a Chinese character) and ended with "…".
func cutWell(shown, full string) string {
	s, f := noSpace(shown), noSpace(full)
	if s == f {
		return ""
	}
	p, ok := strings.CutSuffix(s, "…")
	if !ok {
		return "cut without an ellipsis"
	}
	if !strings.HasPrefix(f, p) || p == "" {
		return "not the start of the text"
	}
	// Where p ends in full.
	i, n := 0, utf8.RuneCountInString(p)
	for n > 0 {
		r, size := utf8.DecodeRuneInString(full[i:])
		if !unicode.IsSpace(r) {
			n--
		}
		i += size
	}
	// The cut may have dropped punctuation: the break is after it.
	rest := strings.TrimLeft(full[i:], trimmedBeforeEllipsis)
	last, _ := utf8.DecodeLastRuneInString(full[:len(full)-len(rest)])
	next, _ := utf8.DecodeRuneInString(rest)
	if rest == "" || unicode.IsSpace(next) || wide(last) || wide(next) {
		return ""
	}
	return "cut in the middle of a word"
}

// Issue #37 item 13: on the start screen every lesson's title and summary
// and every implementation's summary, fixes and misses, in English and
// Chinese, is on screen whole or cut where a line may break, with an
// ellipsis that says so. Before, a lesson's summary lost its third line
// without a mark ("…C calls lock() for") and the other lines were cut
// mid-word ("the lock nev…", "Lua scr…").
func TestStartScreenCutsAtWords(t *testing.T) {
	for _, size := range sizes {
		w, h := size[0], size[1]
		for _, lang := range []string{"en", "zh"} {
			m := newTest(t, Options{Lang: lang}, w, h)
			check := func(what, shown, full string) {
				t.Helper()
				if why := cutWell(shown, full); why != "" {
					t.Errorf("%s %dx%d, %s: %s\n shown: %q\n  text: %q", lang, w, h, what, why, shown, full)
				}
			}
			seen := map[string]bool{}
			for _, s := range m.start.scs {
				impls := []string{s.Naive}
				if !seen[""] {
					// One lesson with every implementation: an
					// implementation's lines are the same under any.
					seen[""] = true
					impls = nil
					for _, in := range m.start.impls {
						impls = append(impls, in.Name)
					}
				}
				for _, name := range impls {
					m.start.pick(s.ID, name)
					_, in := m.start.selected()
					if in != name {
						t.Fatalf("cannot pick %s", name)
					}
					impl := m.start.impls[m.start.im]
					lines := startDetail(t, m.View(), s.ID+" × "+name)
					check(s.ID+"'s title", strings.TrimPrefix(lines[0], s.ID+" × "+name), s.Title.In(lang))
					var summary []string
					j := 1
					for ; j < len(lines) && !strings.HasPrefix(lines[j], name+": "); j++ {
						summary = append(summary, lines[j])
					}
					if j == len(lines) {
						t.Fatalf("no line for %s's summary:\n%s", name, strings.Join(lines, "\n"))
					}
					check(s.ID+"'s summary", strings.Join(summary, " "), s.Summary.In(lang))
					check(name+"'s summary", strings.TrimPrefix(lines[j], name+": "), impl.Summary.In(lang))
					for _, l := range lines[j+1:] {
						if rest, ok := strings.CutPrefix(l, "fixes: "); ok {
							check(name+"'s fixes", rest, impl.Fixes.In(lang))
						}
						if rest, ok := strings.CutPrefix(l, "misses: "); ok {
							check(name+"'s misses", rest, impl.Misses.In(lang))
						}
						if rest, ok := strings.CutPrefix(l, "解决："); ok {
							check(name+"'s fixes", rest, impl.Fixes.In(lang))
						}
						if rest, ok := strings.CutPrefix(l, "遗留："); ok {
							check(name+"'s misses", rest, impl.Misses.In(lang))
						}
					}
				}
			}
		}
	}
}

// startDetail is the start screen's detail box in view, from the line
// that begins with head to the verdict, each line without the box's
// border and its spaces at either end.
func startDetail(t *testing.T, view, head string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(view, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "│"))
		if strings.HasPrefix(l, head) {
			out = []string{l}
			continue
		}
		if out == nil {
			continue
		}
		if strings.HasPrefix(l, "╰") {
			return out
		}
		out = append(out, l)
	}
	t.Fatalf("no detail box for %s:\n%s", head, view)
	return nil
}
