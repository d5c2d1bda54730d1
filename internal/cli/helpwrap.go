package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/text"
)

// usageKey is the annotation of a flag that holds its usage in Chinese.
const usageKey = "lockstep.usage" + zhKey

// usagesZH sets the usage in Chinese of fs's flags, by name, beside the
// English each was defined with. A Chinese usage names its value as the
// English does, `NAME` in backquotes. A name fs lacks is a mistake in
// lockstep, found by any run.
func usagesZH(fs *pflag.FlagSet, zh map[string]string) {
	for name, usage := range zh {
		if err := fs.SetAnnotation(name, usageKey, []string{usage}); err != nil {
			panic(fmt.Sprintf("usagesZH: %v", err))
		}
	}
}

// usageIn is f's usage, of c's flags, in lang. cobra's own --help and
// --version say what they say of every command; a flag with no Chinese
// keeps its English (TestHelpInChinese finds none such).
func usageIn(c *cobra.Command, f *pflag.Flag, lang string) string {
	if lang != "zh" {
		return f.Usage
	}
	if zh := f.Annotations[usageKey]; len(zh) == 1 {
		return zh[0]
	}
	switch f.Name {
	case "help":
		return "显示 " + c.Name() + " 的帮助"
	case "version":
		return "显示 " + c.Name() + " 的版本"
	}
	return f.Usage
}

// flagUsages are c's own flags with their usage in lang, in helpWidth
// columns. The English is pflag's. The Chinese is pflag's columns too,
// but wrapped by width (pflag wraps at spaces, counting bytes), and a
// default said in Chinese.
func flagUsages(c *cobra.Command, lang string) string {
	fs := c.LocalFlags()
	if lang != "zh" {
		return fs.FlagUsagesWrapped(helpWidth)
	}
	zh := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	zh.SortFlags = false
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		g := *f
		g.Usage = usageIn(c, f, lang)
		zh.AddFlag(&g)
		if !g.Hidden {
			flags = append(flags, &g)
		}
	})
	// Unwrapped, pflag's lines are one a flag, in order.
	lines := strings.Split(strings.TrimSuffix(zh.FlagUsagesWrapped(0), "\n"), "\n")
	if len(lines) != len(flags) {
		panic(fmt.Sprintf("flagUsages: %d lines for %d flags", len(lines), len(flags)))
	}
	var b strings.Builder
	for i, line := range lines {
		f := flags[i]
		_, usage := pflag.UnquoteUsage(f)
		at := strings.Index(line, usage)
		if at < 0 {
			panic(fmt.Sprintf("flagUsages: --%s: %q not in %q", f.Name, usage, line))
		}
		head, said := line[:at], line[at:]
		def := f.DefValue
		if f.Value.Type() == "string" {
			def = strconv.Quote(def)
		}
		indent := strings.Repeat(" ", ansi.StringWidth(head))
		width := helpWidth - len(indent)
		said, hasDefault := strings.CutSuffix(said, " (default "+def+")")
		wrapped := wrapWide(said, width)
		if hasDefault {
			// The default is said whole, on the last line if it fits.
			def = "（默认 " + def + "）"
			if last := len(wrapped) - 1; ansi.StringWidth(wrapped[last]+def) <= width {
				wrapped[last] += def
			} else {
				wrapped = append(wrapped, def)
			}
		}
		for j, l := range wrapped {
			if j > 0 {
				head = indent
			}
			b.WriteString(head + l + "\n")
		}
	}
	return b.String()
}

// wrapText wraps each line of s to helpWidth (wrapWide); a line that
// starts with a space or a tab (a command to type) stays as it is, and so
// does an empty one. It ends with a newline.
func wrapText(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			b.WriteString(line + "\n")
			continue
		}
		for _, l := range wrapWide(line, helpWidth) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// wrapWide wraps s to lines of at most width columns, a wide (Chinese)
// character two: it breaks where text.Pieces says a line may (at a space,
// which the break drops, and next to a wide character, but not before
// closing punctuation or after opening punctuation), and never inside a
// run of narrow characters without a space (a flag, a file name, an
// address), which is wider than width only if it is so alone.
func wrapWide(s string, width int) []string {
	var lines []string
	line, lineW := "", 0
	for _, p := range text.Pieces(s) {
		w := ansi.StringWidth(p.Text)
		gap := 0
		if p.Space && line != "" {
			gap = 1
		}
		if line != "" && lineW+gap+w > width {
			lines = append(lines, line)
			line, lineW, gap = "", 0, 0
		}
		line += strings.Repeat(" ", gap) + p.Text
		lineW += gap + w
	}
	return append(lines, line)
}
