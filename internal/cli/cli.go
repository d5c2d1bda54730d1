package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// commands are the subcommands, as an unknown command lists them.
var commands = []string{"list", "play", "check", "explore", "bench", "clean", "monitor", "lessons", "docs", "site", "completion", "help"}

// cli is one run of the command line: where it writes and the exit code its
// command chose.
type cli struct {
	stdout  io.Writer
	code    int
	tui     *tuiFlags // the terminal UI's flags, once parsed
	helpErr error     // help asked of a command that does not exist
}

// done records a command's exit code and returns its error to cobra.
func (a *cli) done(code int, err error) error {
	a.code = code
	return err
}

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

// unknownCommand is the error for a command lockstep does not have.
func unknownCommand(name string) error {
	if s := suggest(name, commands); len(s) > 0 {
		return errUsage{fmt.Errorf("unknown command %q; did you mean %s? valid: %s", name, strings.Join(s, " or "), strings.Join(commands, ", "))}
	}
	return errUsage{fmt.Errorf("unknown command %q; valid: %s", name, strings.Join(commands, ", "))}
}

// unknownSubcommand is the error for a subcommand c does not have: an
// unknown command of lockstep's, an unknown shell of completion's.
func unknownSubcommand(c *cobra.Command, name string) error {
	if !c.HasParent() {
		return unknownCommand(name)
	}
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	what := "command of " + c.Name()
	if c.Name() == "completion" {
		what = "shell"
	}
	if s := suggest(name, names); len(s) > 0 {
		return errUsage{fmt.Errorf("unknown %s %q; did you mean %s? valid: %s", what, name, strings.Join(s, " or "), strings.Join(names, ", "))}
	}
	return errUsage{fmt.Errorf("unknown %s %q; valid: %s", what, name, strings.Join(names, ", "))}
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

// flagError says what was wrong with a flag as it was typed, and where the
// command's flags are listed.
func flagError(c *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &notExist):
		typed := "--" + notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			typed = "-" + s // -verbose: not a flag of lockstep's, as typed
		}
		msg = "unknown flag: " + typed
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := suggest(strings.TrimLeft(typed, "-"), names); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		switch f.Value.Type() {
		case "bool":
			msg = fmt.Sprintf("invalid boolean value %q for --%s: want true or false", invalid.GetValue(), f.Name)
		case "int":
			msg = fmt.Sprintf("invalid value %q for --%s: want a whole number", invalid.GetValue(), f.Name)
		case "float64":
			msg = fmt.Sprintf("invalid value %q for --%s: want a number", invalid.GetValue(), f.Name)
		case "duration":
			msg = fmt.Sprintf("invalid value %q for --%s: want a duration such as 30ms or 1s", invalid.GetValue(), f.Name)
		}
	}
	return errUsage{fmt.Errorf("%s (%s --help lists its flags)", msg, c.CommandPath())}
}

// flagsBeforeCommand refuses the terminal UI's flags in front of a command
// (lockstep --lang zh list): each command has flags of its own, after it.
func flagsBeforeCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || slices.ContainsFunc(args, isHelpFlag) {
		return nil
	}
	fs := root.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if f := lookupFlag(fs, a); f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") {
				i++ // its value
			}
		case slices.Contains(commands, a):
			return errUsage{fmt.Errorf("flags go after the command: lockstep %s %s", a, strings.Join(args[:i], " "))}
		default:
			return nil
		}
	}
	return nil
}

func isHelpFlag(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// lookupFlag finds the flag an argument such as --impl, --impl=x or -impl
// names in fs.
func lookupFlag(fs *pflag.FlagSet, arg string) *pflag.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if !strings.HasPrefix(arg, "--") && len(name) == 1 {
		return fs.ShorthandLookup(name)
	}
	return fs.Lookup(name)
}

// longFlags rewrites -impl as --impl, for every long flag of the command
// args run: lockstep's flags were Go flag-package flags, which take one dash
// as well as two. Values of flags and everything after "--" are left as
// they are.
func longFlags(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil {
		return args
	}
	c.InitDefaultHelpFlag()
	fs := c.Flags()
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			out = append(out, a)
			continue
		}
		f := lookupFlag(fs, a)
		if f != nil && !strings.HasPrefix(a, "--") && f.Name != "" && strings.HasPrefix(a[1:], f.Name) {
			a = "-" + a // -impl, -impl=x; not -h
		}
		out = append(out, a)
		if f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") && i+1 < len(args) {
			i++
			out = append(out, args[i]) // its value, as it is
		}
	}
	return out
}

// execute runs the command line args with cobra and returns the command's
// exit code and error.
func (a *cli) execute(ctx context.Context, args []string, stderr io.Writer) (int, error) {
	root := a.newRoot()
	root.SetOut(a.stdout)
	root.SetErr(stderr)
	withBashLists(root) // after SetOut: see there
	if len(args) == 0 || !strings.HasPrefix(args[0], "__complete") {
		args = longFlags(root, args)
		if err := flagsBeforeCommand(root, args); err != nil {
			return 0, err
		}
	}
	// A nil args would make cobra read os.Args.
	root.SetArgs(append([]string{}, args...))
	a.code = exitOK
	err := root.ExecuteContext(ctx)
	if err == nil && a.helpErr != nil {
		return exitUsage, a.helpErr
	}
	return a.code, err
}
