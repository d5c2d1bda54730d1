package tui

import (
	"context"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// LiveRunner runs a lesson against impl on ctx, which carries the pacer a
// live player sets (backend.WithPacer): on real servers, each command reaches
// them only when the presenter steps to it.
type LiveRunner func(ctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error)

// liveRun is a lesson playing live: its run goes on in the background and
// each Redis command waits for a key press.
type liveRun struct {
	gen    int
	msgs   chan tea.Msg
	next   chan struct{}
	ctx    context.Context // done once the run is stopped
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// The messages of a live run, in the order it sends them: events, a wait
// before each command, and its end.
type (
	liveEventMsg struct {
		gen    int
		header trace.Trace
		e      trace.Event
	}
	liveWaitMsg struct {
		gen        int
		actor, cmd string
	}
	liveDoneMsg struct {
		gen int
		tr  *trace.Trace
		err error
	}
)

// startLive starts s × impl on run, paced: it returns at once.
func startLive(gen int, run LiveRunner, s scenarios.Scenario, impl string) *liveRun {
	ctx, cancel := context.WithCancel(context.Background())
	l := &liveRun{gen: gen, msgs: make(chan tea.Msg), next: make(chan struct{}, 1), ctx: ctx, cancel: cancel}
	send := func(m tea.Msg) bool {
		select {
		case l.msgs <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	p := &backend.Pacer{
		Event: func(h trace.Trace, e trace.Event) { send(liveEventMsg{gen, h, e}) },
		Next: func(ctx context.Context, actor, cmd string) error {
			if !send(liveWaitMsg{gen, actor, cmd}) {
				return context.Canceled
			}
			select {
			case <-l.next:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	}
	info, err := lockimpl.Lookup(impl)
	l.done.Add(1)
	go func() {
		defer l.done.Done()
		var tr *trace.Trace
		if err == nil {
			tr, err = run(backend.WithPacer(ctx, p), s, info)
		}
		send(liveDoneMsg{gen, tr, err})
	}()
	return l
}

// listen waits for the run's next message; nothing, once the run is
// stopped (the TUI may have quit: the wait must not outlive it).
func (l *liveRun) listen() tea.Cmd {
	return func() tea.Msg {
		select {
		case m := <-l.msgs:
			return m
		case <-l.ctx.Done():
			return nil
		}
	}
}

// step lets the next command go.
func (l *liveRun) step() {
	select {
	case l.next <- struct{}{}:
	default: // already let go
	}
}

// stop ends the run and waits, up to a bound, for it to clean up: on real
// servers its keys are removed before the run returns.
func (l *liveRun) stop() {
	if l == nil {
		return
	}
	l.cancel()
	stopped := make(chan struct{})
	go func() {
		// Drain what the run still sends, so that it never blocks.
		for {
			select {
			case <-l.msgs:
			case <-stopped:
				return
			}
		}
	}()
	waited := make(chan struct{})
	go func() { l.done.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
	}
	close(stopped)
}

// liveArrived applies one message of the live run to the player and says
// whether to keep listening.
func (p *playerView) liveArrived(msg tea.Msg) tea.Cmd {
	l := p.live
	switch msg := msg.(type) {
	case liveEventMsg:
		if l == nil || msg.gen != l.gen {
			return nil
		}
		follow := p.tr == nil || p.step >= len(p.tr.Events)-1
		if p.tr == nil {
			h := msg.header
			h.Scenario, h.Title = p.scenario.ID, p.scenario.Title
			for _, id := range invariant.IDs() {
				h.Verdicts = append(h.Verdicts, trace.Verdict{Invariant: id})
			}
			p.tr = &h
		}
		p.tr.Events = append(p.tr.Events, msg.e)
		if msg.e.Kind == trace.KindViolation {
			for i := range p.tr.Verdicts {
				if v := &p.tr.Verdicts[i]; v.Invariant == msg.e.Invariant && !v.Broken {
					v.Broken, v.Step, v.T, v.Reason = true, msg.e.Step, msg.e.T, msg.e.Text
				}
			}
		}
		if follow {
			p.step = len(p.tr.Events) - 1
		}
		return l.listen()
	case liveWaitMsg:
		if l == nil || msg.gen != l.gen {
			return nil
		}
		p.waiting, p.nextCmd = true, msg.actor+": "+msg.cmd
		return l.listen()
	case liveDoneMsg:
		if l == nil || msg.gen != l.gen {
			return nil
		}
		p.waiting, p.liveDone = false, true
		if msg.err != nil {
			p.liveErr = msg.err
			return nil
		}
		msg.tr.Scenario, msg.tr.Title = p.scenario.ID, p.scenario.Title
		p.tr = msg.tr
		p.step = min(p.step, len(p.tr.Events)-1)
	}
	return nil
}

// liveNext is → in a live run: the next event already seen, or, at the
// last one, the go-ahead for the next command.
func (p *playerView) liveNext() {
	if p.tr != nil && p.step < len(p.tr.Events)-1 {
		p.step++
		return
	}
	if p.waiting {
		p.waiting = false
		p.live.step()
	}
}
