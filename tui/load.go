package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// cell is one (failure mode, implementation) pair.
type cell struct{ scenario, impl string }

// traceMsg brings a trace the engine has produced.
type traceMsg struct {
	cell
	tr  *trace.Trace
	err error
}

// loadTrace runs the engine for c, s being its lesson. Runs take a few
// milliseconds; they still happen in a command so that Update and View stay
// pure.
func loadTrace(c cell, s scenarios.Scenario, run func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error)) tea.Cmd {
	if run == nil {
		run = scenarios.Scenario.Run
	}
	return func() tea.Msg {
		impl, err := lockimpl.Lookup(c.impl)
		if err != nil {
			return traceMsg{cell: c, err: err}
		}
		tr, err := run(s, impl)
		return traceMsg{cell: c, tr: tr, err: err}
	}
}

// tickMsg advances autoplay; gen tells a tick from a stale one.
type tickMsg struct{ gen int }
