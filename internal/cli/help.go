package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// overview is what lockstep --help, lockstep help and lockstep without a
// terminal print, above the terminal UI's flags.
const overview = `lockstep — Redis distributed locks, broken on purpose, step by step

usage:
  lockstep [--scenario ID [--impl NAME]] [--autoplay [--speed N]]
                                      the terminal UI: pick a failure mode and
                                      an implementation, step through it,
                                      compare; x on the start screen opens the
                                      sandbox
  lockstep --scenario ID --step N [--stop-at-violation] [--no-spoilers]
                                      for a class: open at step N, stop
                                      autoplay where an invariant breaks, keep
                                      the verdict hidden until it shows
  lockstep --trace FILE               the player, on a saved trace
  lockstep --lessons DIR              the TUI, with your lesson files beside the
                                      built-in lessons
  lockstep --course FILE              the TUI on a course: a class's lessons in
                                      order (docs/lessons.md)
  lockstep list                       the failure modes and the lock
                                      implementations
  lockstep play SCENARIO [--impl NAME] [--format text|md|mermaid|json|html]
                                      play one failure mode as a text timeline
                                      (default impl: the naive one it is about);
                                      html: one page, the player in a browser
  lockstep play --lesson FILE [--impl NAME] [--format …]
                                      play a lesson file of your own
  lockstep play --trace FILE [--format …]
                                      play a saved trace (a schedule found by
                                      explore is made again and checked)
  lockstep check [--lessons DIR | --course FILE] [--json] [--junit FILE]
                                      run every failure mode (or every lesson
                                      file in DIR, or a course's) against every
                                      implementation; exit 1 if any result
                                      differs from its lesson's expectation
  lockstep explore --impl NAME [--clients 2|3] [--faults LIST] [--depth N]
                                      search every schedule of the clients'
                                      commands, time and faults for the
                                      shortest counterexample of each
                                      invariant; exit 1 if one is found
  lockstep bench --redis ADDR[,ADDR…] [--impl LIST] [--duration D]
                                      time acquire+release pairs of every
                                      implementation on real servers
  lockstep clean --redis ADDR[,ADDR…] [--replica ADDR] [--sentinel ADDR[,ADDR…]]
                                      remove what killed runs left on real
                                      servers: ACL users, keys, the replica
                                      lease, Sentinel master names, a promoted
                                      replica; --dry-run only lists
  lockstep monitor --redis ADDR [--all]
                                      a server's MONITOR for the room: the
                                      locks' commands of lockstep's runs, each
                                      after its run; --all every line
  lockstep lessons list | show ID     the built-in lesson files; show prints
                                      one, a start for your own
  lockstep docs [--lang zh] DIR       regenerate the failure-mode pages (docs/)
                                      from the engine's traces; in Chinese
  lockstep site [--lang zh] DIR       write the whole course as a static web
                                      site: every lesson's player page, every
                                      implementation, the self-check
  lockstep completion bash|zsh|fish   a shell completion script: commands,
                                      flags, lesson and implementation names
  lockstep help [COMMAND]             this text, or a command's own: its flags
                                      (also lockstep COMMAND --help)

flags, after the command: --lang en|zh (narration language) on every command
but lessons; --redis ADDR[,ADDR…] (real servers instead of embedded ones) with
--replica ADDR --disposable and --sentinel ADDR[,ADDR…] (Sentinel decides the
failover), or --cluster ADDR[,ADDR…] (a Redis Cluster), and --no-acl and
--time-scale D on play, check and the TUI.
`

// exitCodes ends every help text.
const exitCodes = "exit codes: 0 ok, 1 unmet expectations (explore: a counterexample found),\n2 bad input or a run that could not complete, 3 (check on real servers) a cell\nuntrusted and none unmet\n"

// helpCmd is "lockstep help [COMMAND]": the overview, or a command's own
// help; an unknown command is an error, as anywhere else.
func helpCmd(root *cobra.Command) *cobra.Command {
	c := command("help [COMMAND]", "this overview, or a command's own help",
		"help prints the overview of lockstep; with a command, the command's own\nusage and flags.", "  lockstep help play")
	c.ValidArgsFunction = positional(commandNames)
	c.RunE = func(c *cobra.Command, args []string) error {
		target, rest, err := root.Find(args)
		if err != nil || len(rest) > 0 {
			return unknownCommand(strings.Join(args, " "))
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
		fmt.Fprintf(w, "%s\nflags of the terminal UI (lockstep [flags]):\n%s\n%s", c.Long, c.LocalFlags().FlagUsagesWrapped(80), exitCodes)
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
