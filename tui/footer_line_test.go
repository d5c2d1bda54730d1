package tui

import (
	"strings"
	"testing"
)

// timelineRows counts the player's timeline rows in view: the lines
// between its header and the first rule.
func timelineRows(view string) int {
	n := 0
	for _, l := range strings.Split(view, "\n")[2:] {
		if strings.HasPrefix(l, "────") {
			break
		}
		n++
	}
	return n
}

// Issue #37 item 13: at 80×24 the key help is one line on every screen, in
// English and in Chinese, so the view has its 24 lines and the player's
// timeline as many rows in Chinese as in English. Before, the Chinese
// player's footer wrapped onto a second line ("q 退出" alone) and the
// timeline lost a row.
func TestFooterIsOneLineAt80(t *testing.T) {
	const w, h = 80, 24
	rows := map[string]int{}
	for _, lang := range []string{"en", "zh"} {
		views := map[string]string{}
		m := newTest(t, Options{Lang: lang}, w, h)
		views["start"] = m.View()
		m = newTest(t, Options{Lang: lang, Scenario: "get-then-del"}, w, h)
		m, _ = press(m, "v")
		views["player"] = m.View()
		m, _ = press(m, "space")
		views["player, playing"] = m.View()
		m, _ = press(m, "space", "c")
		views["compare"] = m.View()
		sb := sandbox(t, "uuid-get-del", w, h)
		sb.lang = lang
		views["sandbox"] = sb.View()
		for name, v := range views {
			fits(t, v, w, h)
			lines := strings.Split(v, "\n")
			if len(lines) != h {
				t.Errorf("%s %s: %d lines, want %d:\n%s", lang, name, len(lines), h, v)
			}
			if above := lines[len(lines)-2]; strings.Contains(above, " • ") {
				t.Errorf("%s %s: the footer takes two lines:\n%s\n%s", lang, name, above, lines[len(lines)-1])
			}
			k := m.keys.In(lang)
			for _, b := range []string{k.Help.Help().Key + " " + k.Help.Help().Desc, k.Quit.Help().Key + " " + k.Quit.Help().Desc} {
				if !strings.Contains(lines[len(lines)-1], b) {
					t.Errorf("%s %s: the footer %q lacks %q", lang, name, lines[len(lines)-1], b)
				}
			}
		}
		rows[lang] = timelineRows(views["player"])
	}
	if rows["zh"] != rows["en"] {
		t.Errorf("the Chinese player's timeline has %d rows, the English %d", rows["zh"], rows["en"])
	}
}
