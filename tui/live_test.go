package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

func embeddedLive(ctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
	return s.RunOn(ctx, impl, nil)
}

// pump delivers the live run's messages until it waits for a key or ends;
// it returns the listener still pending, as bubbletea would keep it running.
func pump(t *testing.T, m Model, cmd tea.Cmd) (Model, tea.Cmd) {
	t.Helper()
	for cmd != nil {
		got := make(chan tea.Msg, 1)
		go func() { got <- cmd() }()
		var msg tea.Msg
		select {
		case msg = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("the live run sent nothing for 10s")
		}
		if b, ok := msg.(tea.BatchMsg); ok {
			// A batch: the live run's listener is one of its commands.
			cmd = nil
			for _, c := range b {
				if c != nil {
					cmd = c
				}
			}
			continue
		}
		var next tea.Model
		next, cmd = m.Update(msg)
		m = next.(Model)
		if _, wait := msg.(liveWaitMsg); wait {
			break
		}
	}
	return m, cmd
}

// A live lesson sends one command per → and shows each event as it
// happens; at the end its trace is the recorded one.
func TestLivePlayer(t *testing.T) {
	m := New(Options{Scenario: "get-then-del", Impl: "uuid-get-del", Live: embeddedLive})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	defer m.player.close()
	m, listen := pump(t, m, m.Init())
	commands := func(m Model) int {
		n := 0
		for _, e := range m.player.tr.Events {
			if e.Kind == trace.KindCommand {
				n++
			}
		}
		return n
	}
	if got := commands(m); got != 0 || !m.player.waiting {
		t.Fatalf("before the first key: %d commands, waiting %v", got, m.player.waiting)
	}
	v := m.View()
	for _, want := range []string{"● LIVE", "→ sends A: SET lock:product:1001 A#1 EX 30 NX"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// → at the last event sends the next command; the events it causes
	// arrive; ← and → move among them without sending anything.
	for presses := 1; presses <= 200 && !m.player.liveDone; presses++ {
		m, _ = press(m, "G", "l")
		m, listen = pump(t, m, listen)
		if got := commands(m); got != presses && !m.player.liveDone {
			t.Fatalf("after %d presses: %d commands", presses, got)
		}
		if presses == 3 {
			before := len(m.player.tr.Events)
			m, _ = press(m, "h", "h", "l")
			if len(m.player.tr.Events) != before {
				t.Fatal("stepping back and forth sent a command")
			}
		}
	}
	if !m.player.liveDone || m.player.liveErr != nil {
		t.Fatalf("the live run did not end: done %v, err %v", m.player.liveDone, m.player.liveErr)
	}
	want := allTraces()[cell{"get-then-del", "uuid-get-del"}]
	if len(m.player.tr.Events) != len(want.Events) || len(m.player.tr.Verdicts) != len(want.Verdicts) {
		t.Errorf("live trace: %d events, %d verdicts; recorded: %d, %d", len(m.player.tr.Events), len(m.player.tr.Verdicts), len(want.Events), len(want.Verdicts))
	}
	if !strings.Contains(m.View(), "the live run is over") {
		t.Errorf("the end is not said:\n%s", m.View())
	}
}

// Leaving a live lesson ends its run.
func TestLivePlayerStops(t *testing.T) {
	ended := make(chan error, 1)
	live := func(ctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
		tr, err := s.RunOn(ctx, impl, nil)
		ended <- err
		return tr, err
	}
	m := New(Options{Scenario: "gc-pause", Live: live})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = pump(t, m, m.Init())
	m, _ = press(m, "esc")
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the run ended without an error though it was stopped half-way")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end when the player was left")
	}
}

// In a course played live, → at the end of what has happened sends the next
// command; it does not skip to the next lesson while the run goes on.
func TestLiveCourseStaysOnItsLesson(t *testing.T) {
	c, err := scenarios.ParseCourse("c.course", []byte("course Live\nlesson get-then-del\nlesson gc-pause\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Course: c, Live: embeddedLive})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	defer m.player.close()
	m, listen := pump(t, m, m.Init())
	m, _ = press(m, "l")
	m, _ = pump(t, m, listen)
	if m.player.scenario.ID != "get-then-del" {
		t.Fatalf("→ during a live run opened %s", m.player.scenario.ID)
	}
	n := 0
	for _, e := range m.player.tr.Events {
		if e.Kind == trace.KindCommand {
			n++
		}
	}
	if n != 1 {
		t.Errorf("→ sent %d commands, want 1", n)
	}
}

// Issue #26 item 6: what a live run could not remove from a real server
// (a server that stopped answering) is reported when the TUI closes — the
// screen that showed it is gone by then. Quitting used to exit 0 and print
// nothing, the key left behind unnamed.
func TestRunReportsWhatALiveRunLeft(t *testing.T) {
	started := make(chan struct{})
	left := backend.LeftBehind(errors.New("clean up 127.0.0.1:6390: i/o timeout; left there: lockstep:ab12cd34:lock:product:1001"))
	opts := Options{Lang: "en", Scenario: "get-then-del", Impl: "setnx",
		Live: func(ctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
			close(started)
			<-ctx.Done()
			return nil, errors.Join(ctx.Err(), left)
		}}
	in, keys := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), opts, in, io.Discard) }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the live run never started")
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "left there: lockstep:ab12cd34:lock:product:1001") {
			t.Errorf("Run = %v; want what the live run left", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the TUI did not quit")
	}
	keys.Close()
}
