package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var updateHelp = flag.Bool("update", false, "rewrite testdata/help-en.txt from lockstep's English help")

// helpPaths are the command lines of every command a user may type, as
// arguments: lockstep itself (none), each command, and the commands under
// them (completion bash).
func helpPaths(t *testing.T) [][]string {
	t.Helper()
	root := (&cli{stdout: io.Discard}).newRoot()
	paths := [][]string{nil}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, s := range c.Commands() {
			if s.Hidden {
				continue
			}
			p := append(slices.Clone(path), s.Name())
			paths = append(paths, p)
			walk(s, p)
		}
	}
	walk(root, nil)
	if len(paths) < 17 {
		t.Fatalf("%d commands: %v", len(paths), paths)
	}
	return paths
}

// Issue #41: with no --lang, or --lang en, help is what it was before
// help came in Chinese, byte for byte: testdata/help-en.txt holds every
// command's (go test -run TestHelpEnglish -update rewrites it).
func TestHelpEnglishAsItWas(t *testing.T) {
	var all strings.Builder
	for _, p := range helpPaths(t) {
		out := mustRun(t, append(slices.Clone(p), "--help")...)
		if en := mustRun(t, append(slices.Clone(p), "--help", "--lang", "en")...); en != out {
			t.Errorf("lockstep %s --help --lang en differs from --help:\n%s", strings.Join(p, " "), en)
		}
		all.WriteString("=== lockstep " + strings.Join(append(p, "--help"), " ") + "\n" + out)
	}
	golden := filepath.Join("testdata", "help-en.txt")
	if *updateHelp {
		if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if all.String() != string(want) {
		t.Errorf("English help differs from %s (-update rewrites it, for a change meant):\n%s", golden, all.String())
	}
}

// Issue #41: lockstep --help --lang zh and every command's help under
// --lang zh are Chinese: headings, what the command does, the overview's
// every entry and foot, every flag's usage and the exit codes. What stays
// as it is: commands, flags, names, Redis's words, code. No line of prose
// is left in English (englishWords), and none is wider than 80 columns
// but those the English has too (usage lines, examples).
func TestHelpInChinese(t *testing.T) {
	for _, p := range helpPaths(t) {
		name := strings.Join(append([]string{"lockstep"}, p...), " ")
		t.Run(name, func(t *testing.T) {
			zh := mustRun(t, append(slices.Clone(p), "--help", "--lang", "zh")...)
			en := mustRun(t, append(slices.Clone(p), "--help")...)
			// However it is asked for, the same.
			for _, args := range [][]string{
				append(append([]string{"help"}, p...), "--lang", "zh"),
				append(slices.Clone(p), "--lang=zh", "--help"),
				append(slices.Clone(p), "-h", "-lang", "zh"),
			} {
				if out := mustRun(t, args...); out != zh {
					t.Errorf("lockstep %s differs from --help --lang zh:\n%s", strings.Join(args, " "), out)
				}
			}
			if len(p) == 0 {
				if out := mustRun(t, "--lang", "zh", "--help"); out != zh {
					t.Errorf("lockstep --lang zh --help differs from --help --lang zh:\n%s", out)
				}
			}
			c := findCommand(t, p)
			want := []string{"用法：", "退出码："}
			if c.HasParent() {
				want = append(want, "选项：")
				if c.Example != "" {
					want = append(want, "示例：")
				}
				if c.HasAvailableSubCommands() {
					want = append(want, "命令：")
				}
			} else {
				want = append(want, "终端界面的选项")
			}
			for _, w := range want {
				if !strings.Contains(zh, w) {
					t.Errorf("no %q in:\n%s", w, zh)
				}
			}
			for _, heading := range []string{"usage:", "examples:", "commands:", "flags:", "flags of the terminal UI", "exit codes"} {
				if strings.Contains(zh, heading) {
					t.Errorf("%q in:\n%s", heading, zh)
				}
			}
			// Every flag: its usage in Chinese, on its line.
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if f.Hidden {
					return
				}
				line := flagLine(zh, f)
				if line == "" || !hasHan(line) {
					t.Errorf("--%s: no Chinese usage (%q) in:\n%s", f.Name, line, zh)
				}
			})
			enLines := map[string]bool{}
			for line := range strings.Lines(en) {
				enLines[line] = true
			}
			example := false
			for line := range strings.Lines(zh) {
				if n := ansi.StringWidth(strings.TrimSuffix(line, "\n")); n > 80 && !enLines[line] {
					t.Errorf("a help line of %d columns: %q", n, line)
				}
				switch {
				case strings.HasPrefix(line, "示例："):
					example = true
				case line == "\n":
					example = false
				case !example && !strings.HasPrefix(line, "\t"): // commands to type
					if words := englishWords(line); len(words) > 0 {
						t.Errorf("English %q in %q", words, line)
					}
				}
			}
		})
	}
}

// The overview in Chinese has an entry for every one the English has, in
// the same order, each with what it does in Chinese.
func TestOverviewInChinese(t *testing.T) {
	en, zh := overviewEntries(mustRun(t, "--help")), overviewEntries(mustRun(t, "--help", "--lang", "zh"))
	if len(en) < 15 || len(zh) != len(en) {
		t.Fatalf("%d entries in English, %d in Chinese:\n%q\n%q", len(en), len(zh), en, zh)
	}
	for i := range en {
		usage := func(e string) string {
			first, _, _ := strings.Cut(e, "\n")
			if i := strings.Index(first[2:], "  "); i >= 0 {
				return first[2 : 2+i]
			}
			return first[2:]
		}
		if usage(en[i]) != usage(zh[i]) {
			t.Errorf("entry %d: %q in English, %q in Chinese", i, usage(en[i]), usage(zh[i]))
		}
		if !hasHan(zh[i]) {
			t.Errorf("entry %d has no Chinese: %q", i, zh[i])
		}
	}
}

// overviewEntries are the overview's entries, from the first line of
// "  lockstep …" to its last line of what it does.
func overviewEntries(help string) []string {
	var entries []string
	for line := range strings.Lines(help) {
		switch {
		case strings.HasPrefix(line, "  lockstep "):
			entries = append(entries, line)
		case strings.HasPrefix(line, strings.Repeat(" ", overviewColumn)) && len(entries) > 0:
			entries[len(entries)-1] += line
		case line == "\n" && len(entries) > 0:
			return entries
		}
	}
	return entries
}

// cobra's completion commands say in Chinese what cobra says in English,
// with the same commands to type (TestHelpInChinese checks the rest).
func TestCompletionHelpInChinese(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		c := findCommand(t, []string{"completion", shell})
		zh := c.Annotations[longKey]
		for line := range strings.Lines(c.Long) {
			if strings.HasPrefix(line, "\t") && !strings.Contains(zh, line) {
				t.Errorf("completion %s: %q is cobra's, not in the Chinese:\n%s", shell, line, zh)
			}
		}
	}
}

// Help's --lang is taken out of the arguments only when they ask for
// help: elsewhere a command without --lang refuses it, as before.
func TestHelpLangOnlyForHelp(t *testing.T) {
	if out := mustRun(t, "lessons", "--help", "--lang", "zh"); !strings.Contains(out, "内置的课程文件") {
		t.Errorf("lessons --help --lang zh:\n%s", out)
	}
	code, _, stderr := runCLI(t, "lessons", "list", "--lang", "zh")
	if code != exitUsage || !strings.Contains(stderr, "unknown flag: --lang") {
		t.Errorf("lessons list --lang zh: exit %d, stderr %q", code, stderr)
	}
	// A value that is "--help" is a value.
	if lang, rest := helpLang((&cli{stdout: io.Discard}).newRoot(), []string{"play", "--lesson", "--help", "--lang", "zh"}); lang != "zh" || len(rest) != 5 {
		t.Errorf("helpLang: %q, %q", lang, rest)
	}
}

// englishWords finds English prose in a help line: words of letters alone
// that are neither a name lockstep or Redis gives (a command, a format, a
// fault, a guard, a product, a key of the TUI's) nor in capitals (a Redis command, ADDR). A
// word with anything else in it (--impl, host:port, docs/lessons.md,
// TTL/2) is code, and so left as it is.
func englishWords(line string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return unicode.IsSpace(r) || ansi.StringWidth(string(r)) > 1 }) {
		w = strings.Trim(w, `,.;:!?"'()`)
		if w == "" || strings.ToUpper(w) == w || namesInHelp[w] {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		out = append(out, w)
	}
	return out
}

// namesInHelp are the words of letters that Chinese help keeps as they
// are: lockstep's commands, formats, faults and guards, and the names of
// tools and products.
var namesInHelp = func() map[string]bool {
	names := map[string]bool{}
	for _, w := range strings.Fields(`lockstep list play check explore bench clean monitor lessons show expect docs site
		completion help bash zsh fish powershell shell text md mermaid json html en zh go generate stderr unix x
		Redis Redlock Redisson Lua JUnit Markdown Cluster Linux macOS`) {
		names[w] = true
	}
	for _, w := range append(faultNames(), strings.Split(guardNames(), ", ")...) {
		names[w] = true
	}
	return names
}()

func TestEnglishWords(t *testing.T) {
	for line, want := range map[string]string{
		"播放 one failure mode":                       "one failure mode",
		"  -h, --help   help for play":              "for",
		"      --impl NAME   锁实现 NAME（默认：朴素实现）":     "",
		"用 Redis Cluster 代替 --redis：ADDR[,ADDR...]": "",
		"资源端的检查 NAME：version, in-stock, token":      "",
		"exit codes: 0 ok":                          "exit codes ok",
	} {
		if got := strings.Join(englishWords(line), " "); got != want {
			t.Errorf("englishWords(%q) = %q, want %q", line, got, want)
		}
	}
}

// findCommand is the command of the arguments p.
func findCommand(t *testing.T, p []string) *cobra.Command {
	t.Helper()
	c, _, err := (&cli{stdout: io.Discard}).newRoot().Find(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// flagLine is the line of help that lists f, "" if none.
func flagLine(help string, f *pflag.Flag) string {
	for line := range strings.Lines(help) {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "--"+f.Name+" ") || strings.Contains(line, ", --"+f.Name+" ") {
			return line
		}
	}
	return ""
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}
