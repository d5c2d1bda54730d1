package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// overviewHead and overviewFoot are the overview's first and last lines;
// between them each command's own (inOverview), lockstep's first (the
// terminal UI's), then the others' in their order (subcommands).
const (
	overviewHead = "lockstep — Redis distributed locks, broken on purpose, step by step\n\nusage:\n"
	overviewFoot = `
flags, after the command: --lang en|zh (narration language) on every command
but lessons; --redis ADDR[,ADDR…] (real servers instead of embedded ones) with
--replica ADDR --disposable and --sentinel ADDR[,ADDR…] (Sentinel decides the
failover), or --cluster ADDR[,ADDR…] (a Redis Cluster), and --no-acl and
--time-scale D on play, check and the TUI.
`
)

// overview is what lockstep --help, lockstep help and lockstep without a
// terminal print, above the terminal UI's flags: every command of root's
// tree, with what it does.
func overview(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(overviewHead)
	for _, c := range append([]*cobra.Command{root}, subcommands(root)...) {
		b.WriteString(c.Annotations[overviewKey])
	}
	b.WriteString(overviewFoot)
	return b.String()
}

// exitCodes ends every help text.
const exitCodes = "exit codes: 0 ok, 1 unmet expectations (explore: a counterexample found),\n2 bad input or a run that could not complete, 3 (check on real servers) a cell\nuntrusted and none unmet\n"

// helpCmd is "lockstep help [COMMAND]": the overview, or a command's own
// help; an unknown command is an error, as anywhere else.
func helpCmd(root *cobra.Command) *cobra.Command {
	c := command("help [COMMAND]", "this overview, or a command's own help",
		"help prints the overview of lockstep; with a command, the command's own\nusage and flags.", "  lockstep help play")
	inOverview(c, entry("help [COMMAND]", "this text, or a command's own: its flags", "(also lockstep COMMAND --help)"))
	c.ValidArgsFunction = positional(commandCompletions)
	c.RunE = func(c *cobra.Command, args []string) error {
		target, rest, err := root.Find(args)
		if err != nil || len(rest) > 0 {
			return unknownCommand(root, strings.Join(args, " "))
		}
		target.InitDefaultHelpFlag()
		return target.Help()
	}
	return c
}

// writeHelp writes a command's help: for lockstep itself the overview and
// the terminal UI's flags; for a command what it does, its usage line,
// examples and flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	if !c.HasParent() {
		fmt.Fprintf(w, "%s\nflags of the terminal UI (lockstep [flags]):\n%s\n%s", overview(c), c.LocalFlags().FlagUsagesWrapped(80), exitCodes)
		return
	}
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	fmt.Fprintf(w, "%s\n\nusage:\n  %s\n", strings.TrimSpace(desc), c.UseLine())
	if c.Example != "" {
		fmt.Fprintf(w, "\nexamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
	if subs := c.Commands(); len(subs) > 0 {
		fmt.Fprintf(w, "\ncommands:\n")
		for _, s := range subs {
			if s.IsAvailableCommand() {
				fmt.Fprintf(w, "  %-12s %s\n", s.Name(), s.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", c.LocalFlags().FlagUsagesWrapped(80))
	}
	fmt.Fprintf(w, "\n%s", exitCodes)
}
