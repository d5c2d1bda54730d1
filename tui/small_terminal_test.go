package tui

import (
	"strings"
	"testing"
)

// sizes are the documented minimum and the usual terminal.
var sizes = [][2]int{{64, 20}, {80, 24}}

// Issue #28 item 11: the ? help fits 64×20 and 80×24, in both languages,
// on every screen: its title, every key, the whole legend and the closing
// line are on screen.
func TestHelpFitsSmallTerminals(t *testing.T) {
	for _, size := range sizes {
		w, h := size[0], size[1]
		for _, lang := range []string{"en", "zh"} {
			screens := map[string]Model{
				"start":  newTest(t, Options{Lang: lang}, w, h),
				"player": newTest(t, Options{Lang: lang, Scenario: "get-then-del"}, w, h),
			}
			sb := sandbox(t, "uuid-get-del", w, h)
			sb.lang = lang
			screens["sandbox"] = sb
			for name, m := range screens {
				m, _ = press(m, "?")
				v := m.View()
				fits(t, v, w, h)
				k := m.keys.In(lang)
				wants := []string{k.Help.Help().Desc, k.Quit.Help().Desc, k.Lang.Help().Desc}
				if name != "start" {
					wants = append(wants, k.Back.Help().Desc)
				}
				if name == "player" {
					wants = append(wants, k.Divergence.Help().Desc, k.StopAt.Help().Desc, k.Compare.Help().Desc, k.Violation.Help().Desc)
				}
				for _, line := range strings.Split(legend.In(lang), "\n") {
					for _, item := range strings.Split(line, " · ") {
						wants = append(wants, strings.Fields(item)...)
					}
				}
				if lang == "en" {
					wants = append(wants, "Keys", "? or esc closes this help")
				} else {
					wants = append(wants, "按键", "按 ? 或 esc 关闭帮助")
				}
				flat := strings.Join(strings.Fields(v), " ")
				for _, want := range wants {
					if !strings.Contains(flat, want) {
						t.Errorf("%s %s %dx%d: the help lacks %q:\n%s", name, lang, w, h, want, v)
					}
				}
			}
		}
	}
}

// footer is the view's key help: its last line, and the one above it when
// that is keys too.
func footer(v string) string {
	lines := strings.Split(v, "\n")
	foot := lines[len(lines)-1]
	if above := lines[len(lines)-2]; strings.Contains(above, " • ") {
		foot = above + " • " + foot
	}
	return foot
}

// Issue #28 item 11: at 64×20 and 80×24 the player's footer keeps c and
// i, the sandbox's keeps ? help.
func TestFootersKeepTheirKeys(t *testing.T) {
	for _, size := range sizes {
		w, h := size[0], size[1]
		for _, lang := range []string{"en", "zh"} {
			m := newTest(t, Options{Lang: lang, Scenario: "get-then-del"}, w, h)
			k := m.keys.In(lang)
			v := m.View()
			fits(t, v, w, h)
			foot := footer(v)
			for _, b := range []string{
				k.Next.Help().Key + " " + k.Next.Help().Desc,
				k.Compare.Help().Key + " " + k.Compare.Help().Desc,
				k.SwitchImpl.Help().Key + " " + k.SwitchImpl.Help().Desc,
				k.Help.Help().Key + " " + k.Help.Help().Desc,
				k.Quit.Help().Key + " " + k.Quit.Help().Desc,
			} {
				if !strings.Contains(foot, b) {
					t.Errorf("player %s %dx%d: footer %q lacks %q", lang, w, h, foot, b)
				}
			}
			sb := sandbox(t, "uuid-get-del", w, h)
			sb.lang = lang
			v = sb.View()
			fits(t, v, w, h)
			foot = footer(v)
			for _, b := range []string{k.Help.Help().Key + " " + k.Help.Help().Desc, k.Quit.Help().Key + " " + k.Quit.Help().Desc} {
				if !strings.Contains(foot, b) {
					t.Errorf("sandbox %s %dx%d: footer %q lacks %q", lang, w, h, foot, b)
				}
			}
		}
	}
}

// Issue #28 item 11: after w the replay command shows whole, its file on
// one line, at 64×20 and 80×24, in both languages, whatever the fault set.
func TestSandboxSaveNoteFits(t *testing.T) {
	home := "/home/teacher"
	t.Setenv("HOME", home)
	path := home + "/.local/state/lockstep/sandbox-uuid-get-del-10-moves.json"
	for _, size := range sizes {
		w, h := size[0], size[1]
		for _, faults := range []int{0, len(faultSets) - 1} {
			for _, lang := range []string{"en", "zh"} {
				m := sandbox(t, "uuid-get-del", w, h)
				for range faults {
					m, _ = press(m, "f")
				}
				m = choose(t, m, "A", "A")
				m.lang = lang
				m = send(m, savedMsg{path: path})
				v := m.View()
				fits(t, v, w, h)
				// The file as the note names it, whole on a line, after
				// the command.
				_, file, _ := strings.Cut(m.sandbox.note.EN, "lockstep --trace ")
				file, _, _ = strings.Cut(file, " ")
				flat := strings.Join(strings.Fields(v), " ")
				if !strings.Contains(v, file) || !strings.Contains(flat, "lockstep --trace "+file) {
					t.Errorf("%s %dx%d faults %d: the replay command is cut:\n%s", lang, w, h, faults, v)
				}
				m.sandbox.close() // f built a world of its own
			}
		}
	}
}

// Issue #28 item 11: the sandbox's title names every fault of its set, at
// 64×20, 80×24 and 120×40.
func TestSandboxFaultListFits(t *testing.T) {
	for _, size := range append(sizes, [2]int{120, 40}) {
		w, h := size[0], size[1]
		m := sandbox(t, "uuid-get-del", w, h)
		for i := range faultSets {
			if i > 0 {
				m, _ = press(m, "f")
			}
			v := m.View()
			fits(t, v, w, h)
			var head []string
			for _, l := range strings.Split(v, "\n") {
				if strings.HasPrefix(l, "  t ") {
					break
				}
				head = append(head, l)
			}
			title := strings.Join(head, "")
			for _, f := range faultSets[i] {
				if !strings.Contains(title, string(f)) {
					t.Errorf("%dx%d: the title lacks the fault %s:\n%s", w, h, f, strings.Join(head, "\n"))
				}
			}
		}
		m.sandbox.close() // f built a world of its own
	}
}
