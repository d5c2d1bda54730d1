// Package cli is lockstep's command line: the command tree (cobra), each
// command's flags and checks, help, shell completion, and the commands
// themselves, one file each. Package main, at the module's root, calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/charmbracelet/x/term"
	"github.com/redis/go-redis/v9"
)

// Exit codes.
const (
	exitOK    = 0
	exitUnmet = 1 // check: some cell differs from its expectation
	exitUsage = 2 // bad input (unknown names, bad flags) or a run that could not complete
	// exitUntrusted: check on real servers, no cell unmet, but a cell whose
	// run kept to its clock too loosely for its verdict to count.
	exitUntrusted = 3
)

// SelfCheck is docs/self-check.md, the English checklist on the pages site
// writes. Package main embeds it and sets it before Main runs: go:embed
// reaches no file above its package's directory, and docs/ is at the
// module's root.
var SelfCheck string

// Main is the program as package main runs it, signals included; it
// returns the exit code.
func Main(args []string) int {
	redis.SetLogger(quiet{})
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	return runCtx(ctx, args, os.Stdout, os.Stderr)
}

// stopSignals end a run the way Ctrl-C does: the run stops, its keys are
// removed and the replica is pointed back at its primary, within two
// seconds. Closing the terminal (SIGHUP), kill (SIGTERM) and Ctrl-\
// (SIGQUIT) must not skip that cleanup.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// quiet drops go-redis's own log lines ("failed to dial …"); lockstep reports
// every error itself, naming the address.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// run is the command line without signals: runCtx with a context that is
// never cancelled.
func run(args []string, stdout, stderr io.Writer) int {
	return runCtx(context.Background(), args, stdout, stderr)
}

// runCtx runs the command line args, writing to stdout and stderr, and
// returns the exit code; cancelling ctx (a signal) stops the command, and
// the error lines say so.
func runCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &cli{stdout: stdout}
	code, err := a.execute(ctx, args, stderr)
	if err != nil {
		// Bad input and runs that could not complete alike: exit 1 is kept
		// for "the matrix does not meet its expectation".
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// A signal: say which, then what the cleanup could not do,
			// if anything. The signal is said once, though the error
			// may carry it too (a check stopped with its cause).
			cause := context.Cause(ctx)
			fmt.Fprintf(stderr, "lockstep: interrupted (%v)\n", cause)
			for line := range strings.SplitSeq(err.Error(), "\n") {
				if line != cause.Error() && !strings.HasSuffix(line, context.Canceled.Error()) {
					fmt.Fprintln(stderr, "lockstep:", text.Clean(line))
				}
			}
			return exitUsage
		}
		// An error may quote what the user typed or what a server said:
		// its lines are printed with control characters escaped.
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintln(stderr, "lockstep:", text.Clean(line))
		}
		return exitUsage
	}
	return code
}

// errUsage marks errors that are the user's input, not a failed run.
type errUsage struct{ error }

func (e errUsage) Unwrap() error { return e.error }

// cli is one run of the command line: where it writes and the exit code its
// command chose.
type cli struct {
	stdout  io.Writer
	code    int
	tui     *tuiFlags // the terminal UI's flags, once parsed
	helpErr error     // help asked of a command that does not exist
	lang    string    // the language of help: --lang as typed (helpLang)
}

// done records a command's exit code and returns its error to cobra.
func (a *cli) done(code int, err error) error {
	a.code = code
	return err
}

// execute runs the command line args with cobra and returns the command's
// exit code and error.
func (a *cli) execute(ctx context.Context, args []string, stderr io.Writer) (int, error) {
	root := a.newRoot()
	root.SetErr(stderr)
	if len(args) == 0 || !strings.HasPrefix(args[0], "__complete") {
		args = longFlags(root, args)
		if err := flagsBeforeCommand(root, args); err != nil {
			return 0, err
		}
		a.lang, args = helpLang(root, args)
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

// isTerminal says whether w is a terminal the TUI can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}
