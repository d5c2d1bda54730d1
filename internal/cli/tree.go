package cli

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/text"
)

// The commands and their flags. Each command's RunE hands its flags and
// positional arguments to a cmdX function that checks them and runs. Each
// command's constructor sets everything that names it: its lines in the
// overview (inOverview) and how its arguments and flags complete. What
// lists the commands (the overview, an unknown command's valid ones, a
// command typed after the terminal UI's flags, shell completion) reads
// them from the tree, so that a new command is in each once it is in the
// tree.

// newRoot builds the command tree for one run.
func (a *cli) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "lockstep",
		Short: "the terminal UI",
		// Positional arguments are the root's own to refuse: an unknown
		// command, said the same way as every other error.
		Args:                  cobra.ArbitraryArgs,
		SilenceErrors:         true,
		SilenceUsage:          true,
		DisableFlagsInUseLine: true,
		Version:               version(),
	}
	// The completion command cobra makes keeps the output it has then.
	root.SetOut(a.stdout)
	a.tui = addTUIFlags(root.Flags())
	completeFlags(root, tuiCompletions)
	completeFlags(root, realCompletions)
	inOverview(root, tuiOverview...)
	root.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdTUI(c.Context(), c, a.tui, pos, a.stdout))
	}
	for i, c := range []*cobra.Command{a.listCmd(), a.playCmd(), a.checkCmd(), a.exploreCmd(), a.benchCmd(), a.cleanCmd(), a.monitorCmd(), a.lessonsCmd(), a.expectCmd(), a.docsCmd(), a.siteCmd()} {
		root.AddCommand(ranked(c, i))
	}
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if pos := c.Flags().Args(); len(pos) > 0 && c.HasSubCommands() {
			// "lockstep nosuch --help", "completion tcsh": a command that
			// does not exist has no help to print.
			a.helpErr = unknownSubcommand(c, pos[0])
			return
		}
		writeHelp(c.OutOrStdout(), c, a.lang)
	})
	root.SetUsageFunc(func(c *cobra.Command) error { writeHelp(c.OutOrStdout(), c, a.lang); return nil })
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("lockstep version {{.Version}}\n")
	root.InitDefaultVersionFlag() // now, so that -version is known as --version
	for _, c := range append(root.Commands(), root) {
		// Flags in the order they are declared: the command's own first,
		// the real-server ones after them.
		c.Flags().SortFlags = false
	}
	// cobra's completion and help commands, made now rather than when the
	// command line runs, so that the tree has every command from here on;
	// they come last in the overview.
	n := len(root.Commands())
	ranked(completionCmd(root), n)
	root.SetHelpCommand(ranked(helpCmd(root), n+1))
	root.InitDefaultHelpCmd()
	return root
}

// command is a subcommand with lockstep's defaults: no "[flags]" added to
// its usage line, and positional arguments left to the command to check,
// so that its errors say what it wants. cobra keeps short and long in
// English (Short, Long: what completion and cobra show); the Chinese goes
// beside them (inChinese), for help --lang zh.
func command(use string, short, long text.Text, example string) *cobra.Command {
	c := &cobra.Command{
		Use:                   use,
		Short:                 short.EN,
		Long:                  long.EN,
		Example:               example,
		Args:                  cobra.ArbitraryArgs,
		DisableFlagsInUseLine: true,
	}
	inChinese(c, short.ZH, long.ZH)
	return c
}

// The annotations of lockstep's commands.
const (
	// overviewKey holds a command's lines in the overview (inOverview).
	overviewKey = "lockstep.overview"
	// rankKey is where a command comes among root's: in the overview and
	// in an unknown command's list of valid ones. cobra lists commands by
	// name; lockstep lists them in the order newRoot adds them.
	rankKey = "lockstep.rank"
	// zhKey ends the key of a text's Chinese: overviewKey+zhKey, shortKey
	// and longKey, a flag's usage (usagesZH).
	zhKey = ".zh"
	// shortKey and longKey hold a command's Short and Long in Chinese.
	shortKey = "lockstep.short" + zhKey
	longKey  = "lockstep.long" + zhKey
)

// inChinese sets c's Short and Long in Chinese; long may be empty when
// short says it all, as Long may.
func inChinese(c *cobra.Command, short, long string) {
	annotate(c, shortKey, short)
	annotate(c, longKey, long)
}

// ranked gives c its place among the commands, rank, and returns it.
func ranked(c *cobra.Command, rank int) *cobra.Command {
	annotate(c, rankKey, strconv.Itoa(rank))
	return c
}

// annotate sets c's annotation key.
func annotate(c *cobra.Command, key, value string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[key] = value
}

// subcommands are root's commands a user may type (all but cobra's hidden
// __complete), in lockstep's order (rankKey).
func subcommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	rank := func(c *cobra.Command) int {
		r, err := strconv.Atoi(c.Annotations[rankKey])
		if err != nil {
			return len(out) // a command added without a rank: after the others
		}
		return r
	}
	slices.SortStableFunc(out, func(a, b *cobra.Command) int { return rank(a) - rank(b) })
	return out
}

// commandNames are the names of root's commands (subcommands).
func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range subcommands(root) {
		names = append(names, c.Name())
	}
	return names
}

// overviewColumn is where the overview's descriptions start.
const overviewColumn = 38

// entry is one usage of a command in the overview: "lockstep " and usage,
// then what it does from overviewColumn, the first line on the usage's
// line when there is room. does.EN is in its lines as given ("\n" between
// them); does.ZH is one line, which entry wraps (wrapWide) to the columns
// left of 80: the English keeps the breaks a writer chose, and Chinese,
// which needs no spaces to break at, is wrapped by its width.
func entry(usage string, does text.Text) text.Text {
	return text.New(entryIn(usage, strings.Split(does.EN, "\n")),
		entryIn(usage, wrapWide(does.ZH, helpWidth-overviewColumn)))
}

// entryIn is an entry with its description in lines.
func entryIn(usage string, does []string) string {
	var b strings.Builder
	head := "  lockstep " + usage
	indent := strings.Repeat(" ", overviewColumn)
	if n := utf8.RuneCountInString(head); n+2 <= overviewColumn {
		b.WriteString(head + indent[n:] + does[0] + "\n")
		does = does[1:]
	} else {
		b.WriteString(head + "\n")
	}
	for _, l := range does {
		b.WriteString(indent + l + "\n")
	}
	return b.String()
}

// inOverview sets c's lines in the overview: its entries, in order, in
// English and in Chinese.
func inOverview(c *cobra.Command, entries ...text.Text) {
	var en, zh strings.Builder
	for _, e := range entries {
		en.WriteString(e.EN)
		zh.WriteString(e.ZH)
	}
	annotate(c, overviewKey, en.String())
	annotate(c, overviewKey+zhKey, zh.String())
}
