package cli

import (
	"github.com/spf13/cobra"
)

// The commands and their flags. Each command's RunE hands its flags and
// positional arguments to a cmdX function that checks them and runs.

// newRoot builds the command tree for one run.
func (a *cli) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "lockstep",
		Short: "the terminal UI",
		Long:  overview,
		// Positional arguments are the root's own to refuse: an unknown
		// command, said the same way as every other error.
		Args:                  cobra.ArbitraryArgs,
		SilenceErrors:         true,
		SilenceUsage:          true,
		DisableFlagsInUseLine: true,
		Version:               version(),
	}
	a.tui = addTUIFlags(root.Flags())
	root.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdTUI(c.Context(), c, a.tui, pos, a.stdout))
	}
	root.AddCommand(a.listCmd(), a.playCmd(), a.checkCmd(), a.exploreCmd(), a.benchCmd(), a.cleanCmd(), a.monitorCmd(), a.lessonsCmd(), a.docsCmd(), a.siteCmd())
	root.SetHelpCommand(helpCmd(root))
	withCompletion(root)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if pos := c.Flags().Args(); len(pos) > 0 && c.HasSubCommands() {
			// "lockstep nosuch --help", "completion tcsh": a command that
			// does not exist has no help to print.
			a.helpErr = unknownSubcommand(c, pos[0])
			return
		}
		writeHelp(c.OutOrStdout(), c)
	})
	root.SetUsageFunc(func(c *cobra.Command) error { writeHelp(c.OutOrStdout(), c); return nil })
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("lockstep version {{.Version}}\n")
	root.InitDefaultVersionFlag() // now, so that -version is known as --version
	for _, c := range append(root.Commands(), root) {
		// Flags in the order they are declared: the command's own first,
		// the real-server ones after them.
		c.Flags().SortFlags = false
	}
	return root
}

// command is a subcommand with lockstep's defaults: no "[flags]" added to
// its usage line, and positional arguments left to the command to check,
// so that its errors say what it wants.
func command(use, short, long, example string) *cobra.Command {
	return &cobra.Command{
		Use:                   use,
		Short:                 short,
		Long:                  long,
		Example:               example,
		Args:                  cobra.ArbitraryArgs,
		DisableFlagsInUseLine: true,
	}
}

// commands are the subcommands, as an unknown command lists them.
var commands = []string{"list", "play", "check", "explore", "bench", "clean", "monitor", "lessons", "docs", "site", "completion", "help"}
