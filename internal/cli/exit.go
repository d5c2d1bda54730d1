// Package cli is lockstep's command line: the command tree (cobra), each
// command's flags and checks, help, shell completion, and the commands
// themselves. Package main, at the module's root, only calls Main.
package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/redis/go-redis/v9"

	"github.com/lockstep-sim/lockstep/scenarios/sim"
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

// quiet drops go-redis's own log lines ("failed to dial …"); lockstep reports
// every error itself, naming the address.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

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

// isTerminal says whether w is a terminal the TUI can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}

// errUsage marks errors that are the user's input, not a failed run.
type errUsage struct{ error }

func (e errUsage) Unwrap() error { return e.error }

func run(args []string, stdout, stderr io.Writer) int {
	return runCtx(context.Background(), args, stdout, stderr)
}

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
					fmt.Fprintln(stderr, "lockstep:", sim.CleanText(line))
				}
			}
			return exitUsage
		}
		// An error may quote what the user typed or what a server said:
		// its lines are printed with control characters escaped.
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintln(stderr, "lockstep:", sim.CleanText(line))
		}
		return exitUsage
	}
	return code
}

// writeFile writes a report to path, all or nothing, with the permissions
// of any file the user creates (0666 less the umask).
func writeFile(path string, write func(io.Writer) error) error {
	f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createTemp creates a new file in dir with mode 0666 (less the umask),
// where os.CreateTemp would give 0600: the file is renamed into place and
// must end up as readable as any other the user writes.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name := filepath.Join(dir, ".lockstep-"+hex.EncodeToString(b))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary name in " + dir)
}

// checkLang makes sure lang is one lockstep speaks.
func checkLang(lang string) error {
	if lang != "en" && lang != "zh" {
		return unknownName("en", kindLanguage, lang, []string{"en", "zh"})
	}
	return nil
}
