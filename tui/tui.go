// Package tui is lockstep's terminal UI: a start screen to pick a failure
// mode and an implementation, a player that steps through the trace, and a
// compare mode that sets two implementations side by side on the same
// timeline. It renders traces only; the engine runs inside tea.Cmds.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// Options configure a TUI session.
type Options struct {
	// Lang is "en" or "zh".
	Lang string
	// Scenario and Impl open the player directly when Scenario is set; an
	// empty Impl means the scenario's naive implementation.
	Scenario string
	Impl     string
	// Autoplay starts playing at once, Speed steps per second (default 2).
	Autoplay bool
	Speed    float64
	// Step opens the player at this step (steps are numbered from 0, as
	// play and check --json number them); past the last, at the last.
	Step int
	// StopAtViolation makes autoplay stop at every step where an invariant
	// breaks (the player's key s toggles it).
	StopAtViolation bool
	// NoSpoilers hides what the lesson expects to break and every row below
	// the cursor, for a class that should guess first.
	NoSpoilers bool
	// Runner produces the traces; nil runs the embedded engine. Recording,
	// when set, names the real servers the traces were recorded on.
	Runner    func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error)
	Recording string
	// Live, when set, plays each lesson live instead of from a recording:
	// the run goes on in the background as the player shows it, and each
	// Redis command goes only when → (or autoplay) steps to it — on real
	// servers, MONITOR shows it arrive then. The run's time stands still
	// while it waits (backend.Pacer). Leaving the lesson or quitting ends the
	// run, which removes its keys. Switching the implementation and compare
	// mode are off.
	Live LiveRunner
	// Trace, when set, opens the player on this trace (a file saved by play
	// --format json or explore --out) instead of a scenario; switching the
	// implementation and compare mode are then off.
	Trace *trace.Trace
	// Lessons are the user's own lessons (lesson files), listed after the
	// built-in ones.
	Lessons []scenarios.Scenario
	// Command is how the user runs lockstep, for the hints that name a
	// command ("lockstep --trace FILE replays it"): "lockstep",
	// "./bin/lockstep", "go run .". Empty is "lockstep". The TUI does not
	// look at os.Args: main decides.
	Command string
	// Course, when set, is a class's playlist: the start screen lists its
	// lessons in its order, the player opens on the first, and → past a
	// lesson's last step (← before its first) goes to the next (previous)
	// lesson. Its language and speed apply where the options give none.
	Course *scenarios.Course
}

// catalogue is the lessons the TUI shows: the course's, or the built-in
// ones and the user's own.
func (o Options) catalogue() []scenarios.Scenario {
	if o.Course != nil {
		return o.Course.Lessons()
	}
	return scenarios.Over(o.Lessons)
}

// Check validates the options' names; the errors list the valid ones.
func (o Options) Check() error {
	if o.Lang != "" && o.Lang != "en" && o.Lang != "zh" {
		return errors.New(suggest.Unknown(text.New("language", "语言"), o.Lang, []string{"en", "zh"}).EN)
	}
	if o.Scenario != "" && !slices.ContainsFunc(o.catalogue(), func(s scenarios.Scenario) bool { return s.ID == o.Scenario }) {
		_, err := scenarios.Lookup(o.Scenario)
		return err
	}
	if o.Impl != "" {
		if _, err := lockimpl.Lookup(o.Impl); err != nil {
			return err
		}
	}
	if math.IsNaN(o.Speed) || o.Speed < 0 || o.Speed > maxSpeed {
		return fmt.Errorf("speed %v out of range; valid: 0 < speed ≤ %v steps per second", o.Speed, maxSpeed)
	}
	return nil
}

// Run opens the TUI on the terminal and returns when the user quits or ctx
// ends (a signal: the terminal closed).
func Run(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	if err := opts.Check(); err != nil {
		return err
	}
	left := &leftovers{}
	opts.Live, opts.Runner = left.live(opts.Live), left.runner(opts.Runner)
	p := tea.NewProgram(New(opts), tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx))
	final, err := p.Run()
	if m, ok := final.(Model); ok {
		m.player.close() // a live run still under way removes its keys
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return errors.Join(err, left.err())
}

// leftovers collects what the session's runs on real servers could not
// remove there (backend.LeftBehinds), for Run to report when the TUI closes:
// the screen that showed it is gone by then.
type leftovers struct {
	mu   sync.Mutex
	errs []error
}

func (l *leftovers) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, backend.LeftBehinds(err)...)
}

func (l *leftovers) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.errs...)
}

// live is run, its leftovers collected.
func (l *leftovers) live(run LiveRunner) LiveRunner {
	if run == nil {
		return nil
	}
	return func(ctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
		tr, err := run(ctx, s, impl)
		l.add(err)
		return tr, err
	}
}

// runner is run, its leftovers collected.
func (l *leftovers) runner(run func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error)) func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error) {
	if run == nil {
		return nil
	}
	return func(s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
		tr, err := run(s, impl)
		l.add(err)
		return tr, err
	}
}

// speeds are the autoplay rates, in steps per second.
var speeds = scenarios.Speeds

const maxSpeed = 16

func speedIndex(s float64) int {
	if s <= 0 {
		s = 2
	}
	best := 0
	for i, v := range speeds {
		if v <= s {
			best = i
		}
	}
	return best
}

func interval(speed int) time.Duration {
	return time.Duration(float64(time.Second) / speeds[speed])
}
