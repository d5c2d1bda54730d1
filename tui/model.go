package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// Below this size the screen says so instead of drawing garbage.
const (
	minWidth  = 64
	minHeight = 20
)

// screen is what the TUI shows.
type screen int

const (
	screenStart screen = iota
	screenPlayer
	screenSandbox
)

func (s screen) String() string {
	switch s {
	case screenStart:
		return "start"
	case screenPlayer:
		return "player"
	case screenSandbox:
		return "sandbox"
	}
	return fmt.Sprintf("screen(%d)", int(s))
}

// Model is the root model: it owns the size, the language, the key map, the
// trace cache and the two screens.
type Model struct {
	keys   KeyMap
	styles Styles
	help   help.Model

	width, height int
	lang          string
	screen        screen
	showHelp      bool

	start   startView
	player  playerView
	sandbox sandboxView

	traces map[cell]*trace.Trace
	err    error

	run       func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error)
	recording string
	// command is how the user runs lockstep (Options.Command).
	command string

	// course is the class's playlist, entry the lesson of it playing.
	course *scenarios.Course
	entry  int
}

// New builds the model for opts (which Check has accepted).
func New(opts Options) Model { return newModel(opts, map[cell]*trace.Trace{}) }

// newModel builds the model over a trace cache (tests fill it beforehand).
func newModel(opts Options, traces map[cell]*trace.Trace) Model {
	lang := opts.Lang
	if c := opts.Course; c != nil {
		if lang == "" {
			lang = c.Lang
		}
		if opts.Speed == 0 {
			opts.Speed = c.Speed
		}
	}
	if lang == "" {
		lang = "en"
	}
	// A course's "spoilers off" is --no-spoilers: no expected verdict on
	// the start screen, no rows below the cursor in the player.
	noSpoilers := opts.NoSpoilers || opts.Course != nil && !opts.Course.Spoilers
	st := NewStyles()
	h := help.New()
	h.Styles.ShortKey = st.Header
	h.Styles.FullKey = st.Header
	m := Model{
		keys:   DefaultKeyMap(),
		styles: st,
		help:   h,
		width:  80,
		height: 24,
		lang:   lang,
		traces: traces,
		start:  newStartView(opts.catalogue(), noSpoilers),
		course: opts.Course,

		run:       opts.Runner,
		recording: opts.Recording,
		command:   cmp.Or(text.Clean(opts.Command), "lockstep"),
	}
	if c := opts.Course; c != nil {
		m.start.own = map[string]string{}
		for i := len(c.Entries) - 1; i >= 0; i-- { // the first entry of a lesson wins
			m.start.own[c.Entries[i].Lesson.ID] = c.Entries[i].Impls[0]
		}
	}
	m.start.keep = opts.Impl != "" && opts.Scenario == "" && opts.Course == nil && opts.Trace == nil
	m.player.speed = speedIndex(opts.Speed)
	m.player.run, m.player.recording = m.run, m.recording
	m.player.stopAt, m.player.noSpoilers = opts.StopAtViolation, noSpoilers
	m.player.startStep = opts.Step
	m.player.liveRunner = opts.Live
	if opts.Trace != nil {
		// A trace from a file may carry escape sequences; the player shows
		// its control characters as visible escapes (cleaning it in place).
		opts.Trace.Clean()
		s := scenarios.Scenario{ID: opts.Trace.Scenario, Title: opts.Trace.Title}
		m.traces[cell{s.ID, opts.Trace.Impl}] = opts.Trace
		m.screen = screenPlayer
		m.player.open(s, opts.Trace.Impl)
		m.player.fixed = true
		m.player.playing = opts.Autoplay
		m.player.arrived(m.traces)
	} else if opts.Course != nil {
		m.openEntry(0)
		m.player.playing = opts.Autoplay
		m.player.arrived(m.traces)
	} else if opts.Scenario != "" {
		s := m.start.scs[slices.IndexFunc(m.start.scs, func(s scenarios.Scenario) bool { return s.ID == opts.Scenario })]
		impl := opts.Impl
		if impl == "" {
			impl = s.Naive
		}
		m.start.pick(opts.Scenario, impl)
		m.screen = screenPlayer
		m.player.open(s, impl)
		m.player.playing = opts.Autoplay
		m.player.arrived(m.traces)
	} else if opts.Impl != "" {
		m.start.pick("", opts.Impl)
	}
	if m.screen == screenPlayer && m.player.liveRunner != nil {
		m.player.wanted(m.traces) // starts the live run; Init listens to it
	}
	return m
}

// Init loads the trace the player opens on, if any, and starts autoplay.
func (m Model) Init() tea.Cmd {
	if m.screen != screenPlayer {
		return nil
	}
	var tick tea.Cmd
	if m.player.playing {
		tick = m.player.schedule()
	}
	if m.player.live != nil {
		// Started by New (Init cannot keep what it changes).
		return tea.Batch(m.player.live.listen(), tick)
	}
	return tea.Batch(m.player.wanted(m.traces), tick)
}

// Update is the one place state changes.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		return m, nil
	case traceMsg:
		if msg.err != nil {
			m.err = msg.err
			return m, nil
		}
		m.traces[msg.cell] = msg.tr
		return m, m.player.arrived(m.traces)
	case tickMsg:
		return m, m.player.tick(msg, m.traces)
	case sandboxMsg:
		m.sandbox.update(msg)
		return m, nil
	case liveEventMsg, liveWaitMsg, liveDoneMsg:
		return m, m.player.liveArrived(msg)
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// Letters typed faster than the terminal is read arrive as
			// one message: each is a key press of its own.
			var cmds []tea.Cmd
			var next tea.Model = m
			for _, r := range msg.Runes {
				var cmd tea.Cmd
				next, cmd = next.(Model).key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
				cmds = append(cmds, cmd)
			}
			return next, tea.Batch(cmds...)
		}
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.player.close()
		return m, tea.Quit
	case m.terminalTooSmall():
		// The screen under it cannot be seen: a key would change it
		// unseen (enter opened a player). It is as it was when the
		// terminal grows.
		return m, nil
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		return m, nil
	case m.showHelp && key.Matches(msg, k.Back):
		m.showHelp = false
		return m, nil
	case key.Matches(msg, k.Lang):
		if m.lang == "zh" {
			m.lang = "en"
		} else {
			m.lang = "zh"
		}
		return m, nil
	}
	if m.showHelp {
		return m, nil
	}
	switch m.screen {
	case screenStart:
		if key.Matches(msg, k.Sandbox) {
			_, name := m.start.selected()
			impl, _ := lockimpl.Lookup(name)
			m.sandbox.close()
			m.sandbox = newSandbox(impl, m.sandbox.faults, m.command)
			m.screen = screenSandbox
			return m, nil
		}
		if key.Matches(msg, k.Open) {
			s, impl := m.start.selected()
			if m.course != nil {
				// The course's entry for this lesson: its implementations
				// and step.
				for i, e := range m.course.Entries {
					if e.Lesson.ID == s.ID {
						m.openEntry(i)
						m.player.open(s, impl)
						return m, tea.Batch(m.player.wanted(m.traces), m.player.arrived(m.traces))
					}
				}
			}
			m.screen = screenPlayer
			m.player = m.player.fresh()
			m.player.open(s, impl)
			return m, tea.Batch(m.player.wanted(m.traces), m.player.arrived(m.traces))
		}
		m.start.key(msg, k)
		return m, nil
	case screenPlayer:
		if key.Matches(msg, k.Back) {
			// The start screen shows where the player was: the
			// implementation switched to, the course's lesson.
			m.start.pick(m.player.scenario.ID, m.player.impl)
			m.screen = screenStart
			m.player.close()
			return m, nil
		}
		if m.course != nil && m.player.ready() && !m.player.compare && (m.player.live == nil || m.player.liveDone) {
			// (A live lesson still running steps on at its end: → sends
			// its next command.)
			// A course runs on past a lesson's ends: → after the last step
			// opens the next lesson, ← before the first the previous one.
			next := key.Matches(msg, k.Next) && m.player.pos() >= m.player.length()-1 && m.entry+1 < len(m.course.Entries)
			prev := key.Matches(msg, k.Prev) && m.player.pos() == 0 && m.entry > 0
			if next || prev {
				if next {
					m.openEntry(m.entry + 1)
				} else {
					m.openEntry(m.entry - 1)
				}
				return m, tea.Batch(m.player.wanted(m.traces), m.player.arrived(m.traces))
			}
		}
		return m, m.player.key(msg, k, m.traces)
	case screenSandbox:
		if key.Matches(msg, k.Back) {
			// x builds a new sandbox; this one's world would only hold its
			// goroutines and servers until then.
			m.sandbox.close()
			m.screen = screenStart
			return m, nil
		}
		return m, m.sandbox.key(msg, k, m.lang, m.width, m.height)
	}
	return m, nil
}

// openEntry opens the player on the course's lesson i: its first
// implementation, at its step.
func (m *Model) openEntry(i int) {
	e := m.course.Entries[i]
	m.entry = i
	m.start.pick(e.Lesson.ID, e.Impls[0])
	m.screen = screenPlayer
	m.player = m.player.fresh()
	m.player.impls, m.player.startStep = e.Impls, e.Step
	m.player.lesson, m.player.lessons = i+1, len(m.course.Entries)
	m.player.open(e.Lesson, e.Impls[0])
}

// View draws the screen from the model alone.
func (m Model) View() string {
	if m.terminalTooSmall() {
		return m.tooSmall()
	}
	if m.err != nil {
		return m.styles.Bad.Render("lockstep: "+m.err.Error()) + "\n\n" + m.help.ShortHelpView([]key.Binding{m.keys.Quit})
	}
	if m.showHelp {
		return m.helpView()
	}
	switch m.screen {
	case screenPlayer:
		return m.player.view(m.styles, m.lang, m.width, m.height, m.help, m.keys.In(m.lang))
	case screenSandbox:
		return m.sandbox.view(m.styles, m.lang, m.width, m.height, m.help, m.keys.In(m.lang))
	default:
		return m.start.view(m.styles, m.lang, m.width, m.height, m.help, m.keys.In(m.lang))
	}
}

// terminalTooSmall reports whether the terminal is smaller than the screens
// need: View says so instead, and only q does anything.
func (m Model) terminalTooSmall() bool { return m.width < minWidth || m.height < minHeight }

func (m Model) tooSmall() string {
	msg := text.Newf(
		"lockstep needs a terminal of at least %d×%d; this one is %d×%d.\nMake it larger, or press q to quit.",
		"lockstep 需要至少 %d×%d 的终端，当前是 %d×%d。\n请放大终端，或按 q 退出。",
		minWidth, minHeight, m.width, m.height).In(m.lang)
	msg = m.styles.Narration.Width(max(m.width-2, 10)).Render(msg)
	lines := firstLines(lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg), max(m.height, 1))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "")
	}
	return strings.Join(lines, "\n")
}
