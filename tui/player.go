package tui

import (
	"slices"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// playerView steps through one trace, or two side by side in compare mode.
type playerView struct {
	scenario scenarios.Scenario
	impl     string
	tr       *trace.Trace
	step     int

	playing bool
	speed   int // index into speeds
	gen     int // the current autoplay generation

	compare bool
	other   string
	otr     *trace.Trace
	rows    []pair // the two traces aligned
	row     int
	diverge int // first row where they differ, -1 if never

	// at is the position to restore once a switched trace arrives.
	at    position
	hasAt bool

	// fixed: the trace came from a file; there is no other implementation
	// to switch to or compare with.
	fixed bool

	// impls, when set (a course's lesson), are the implementations i and c
	// choose among; startStep is where the first trace opens.
	impls     []string
	startStep int
	// lesson is the course's lesson playing, of lessons (0: no course).
	lesson, lessons int

	// run produces traces (nil: the embedded engine); recording names the
	// real servers they were recorded on.
	run       func(scenarios.Scenario, lockimpl.Info) (*trace.Trace, error)
	recording string

	// queued are the keys pressed while the trace was still on its way;
	// they apply, in order, once it is there.
	queued []tea.KeyMsg
	keys   KeyMap // the key map the queued keys were pressed under
	// flash is a one-time message for the narration line: a key that had
	// nothing to do says so.
	flash text.Text
	// stopAt: autoplay stops at every violation. noSpoilers: the rows below
	// the cursor stay blank.
	stopAt, noSpoilers bool

	// liveRunner, when set, plays lessons live: live is the run under way,
	// waiting says it waits for → before its next command (nextCmd),
	// liveDone that it has ended (with liveErr if it failed).
	liveRunner LiveRunner
	live       *liveRun
	waiting    bool
	nextCmd    string
	liveDone   bool
	liveErr    error
}

// position is a place in a trace that survives switching implementations:
// a virtual time and how many events into that instant.
type position struct {
	t time.Duration
	k int
}

func (p *playerView) open(s scenarios.Scenario, impl string) {
	p.scenario, p.impl, p.tr, p.step = s, impl, nil, 0
	p.compare, p.otr, p.rows = false, nil, nil
	p.queued, p.flash = nil, text.Text{}
	if p.liveRunner != nil {
		p.live.stop()
		p.live, p.waiting, p.nextCmd, p.liveDone, p.liveErr = nil, false, "", false, nil
		p.fixed = true // one run, as it happens: nothing to switch to
	}
}

func (p *playerView) stop() { p.playing = false; p.gen++ }

// close stops autoplay and a live run (which removes its keys first).
func (p *playerView) close() {
	p.stop()
	p.live.stop()
	p.live = nil
}

// fresh is a new player with the settings that outlive a lesson: speed,
// where traces come from, the teacher's switches.
func (p playerView) fresh() playerView {
	return playerView{speed: p.speed, gen: p.gen + 1, run: p.run, recording: p.recording,
		stopAt: p.stopAt, noSpoilers: p.noSpoilers, liveRunner: p.liveRunner}
}

// wanted loads whatever the view needs and does not have yet.
func (p *playerView) wanted(traces map[cell]*trace.Trace) tea.Cmd {
	if p.liveRunner != nil {
		if p.live != nil {
			return nil // listening already
		}
		p.live = startLive(p.gen, p.liveRunner, p.scenario, p.impl)
		return p.live.listen()
	}
	var cmds []tea.Cmd
	if c := (cell{p.scenario.ID, p.impl}); traces[c] == nil {
		cmds = append(cmds, loadTrace(c, p.scenario, p.run))
	}
	if c := (cell{p.scenario.ID, p.other}); p.compare && traces[c] == nil {
		cmds = append(cmds, loadTrace(c, p.scenario, p.run))
	}
	return tea.Batch(cmds...)
}

// arrived takes the traces from the cache once they are there.
func (p *playerView) arrived(traces map[cell]*trace.Trace) tea.Cmd {
	if p.liveRunner != nil {
		return nil // a live run's events come as they happen
	}
	tr := traces[cell{p.scenario.ID, p.impl}]
	if tr == nil {
		return nil
	}
	if p.compare {
		otr := traces[cell{p.scenario.ID, p.other}]
		if otr == nil {
			return nil
		}
		p.compareWith(tr, otr)
	}
	if !p.compare {
		p.tr = tr
		p.step = 0
		if p.hasAt {
			p.step = stepAt(tr, p.at)
		} else if p.startStep > 0 {
			// A course opens a lesson at a step of its choosing.
			p.step = min(p.startStep, len(tr.Events)-1)
			p.startStep = 0
		}
	}
	p.hasAt = false
	// The keys pressed while it loaded.
	var cmds []tea.Cmd
	queued := p.queued
	p.queued = nil
	for _, k := range queued {
		cmds = append(cmds, p.key(k, p.keys, traces))
	}
	return tea.Batch(cmds...)
}

// compareWith lines tr and otr up for compare mode, or, for two runs with
// too many events at the same instants to align (align's bound), says so
// and stays on tr.
func (p *playerView) compareWith(tr, otr *trace.Trace) {
	rows, diverge, ok := align(tr, otr)
	if !ok {
		p.compare, p.otr, p.rows = false, nil, nil
		p.flash = text.New("these two runs have too many events at the same moments to be compared here",
			"这两次运行在同一时刻的事件太多，无法在这里对比")
		return
	}
	p.tr, p.otr, p.rows, p.diverge = tr, otr, rows, diverge
	p.row = 0
	if p.hasAt {
		p.row = p.rowAt(p.at)
	}
}

func (p *playerView) ready() bool {
	return p.tr != nil && (!p.compare || p.otr != nil)
}

// here is the current position.
func (p *playerView) here() position {
	if p.compare {
		l, r := p.sides()
		if l >= 0 {
			return positionOf(p.tr, l)
		}
		return positionOf(p.otr, r)
	}
	return positionOf(p.tr, p.step)
}

func positionOf(tr *trace.Trace, i int) position {
	e := tr.Events[i]
	k := 0
	for j := i - 1; j >= 0 && tr.Events[j].T == e.T; j-- {
		k++
	}
	return position{e.T, k}
}

// stepAt finds pos in tr: the k-th event at that instant (or the last one),
// else the last event before it.
func stepAt(tr *trace.Trace, pos position) int {
	best := 0
	for i, e := range tr.Events {
		if e.T > pos.t {
			break
		}
		if e.T < pos.t || positionOf(tr, i).k <= pos.k {
			best = i
		}
	}
	return best
}

func (p *playerView) rowAt(pos position) int {
	best := 0
	for i, r := range p.rows {
		if r.l < 0 {
			continue
		}
		e := p.tr.Events[r.l]
		if e.T > pos.t {
			break
		}
		if e.T < pos.t || positionOf(p.tr, r.l).k <= pos.k {
			best = i
		}
	}
	return best
}

// sides are the events each trace shows at the current row: the latest one
// at or before it.
func (p *playerView) sides() (l, r int) {
	l, r = -1, -1
	for i := 0; i <= p.row && i < len(p.rows); i++ {
		if p.rows[i].l >= 0 {
			l = p.rows[i].l
		}
		if p.rows[i].r >= 0 {
			r = p.rows[i].r
		}
	}
	return l, r
}

func (p *playerView) length() int {
	if p.compare {
		return len(p.rows)
	}
	return len(p.tr.Events)
}

func (p *playerView) pos() int {
	if p.compare {
		return p.row
	}
	return p.step
}

func (p *playerView) setPos(i int) {
	i = max(0, min(i, p.length()-1))
	if p.compare {
		p.row = i
	} else {
		p.step = i
	}
}

// schedule asks for the next autoplay tick. Only stop changes the
// generation, so one chain of ticks runs at a time.
func (p playerView) schedule() tea.Cmd {
	gen := p.gen
	return tea.Tick(interval(p.speed), func(time.Time) tea.Msg { return tickMsg{gen} })
}

func (p *playerView) tick(msg tickMsg, traces map[cell]*trace.Trace) tea.Cmd {
	if msg.gen != p.gen || !p.playing {
		return nil
	}
	if p.live != nil && p.tr != nil && !p.liveDone {
		// Live: step through what has happened, then let the next
		// command go.
		p.liveNext()
		if p.stopAt && p.isViolation(p.step) {
			p.playing = false
			return nil
		}
		return p.schedule()
	}
	if !p.ready() {
		return p.schedule() // a switched trace is on its way
	}
	if p.pos() >= p.length()-1 {
		p.playing = false
		return nil
	}
	p.setPos(p.pos() + 1)
	if p.stopAt && p.isViolation(p.pos()) {
		p.playing = false
		return nil
	}
	return p.schedule()
}

func (p *playerView) key(msg tea.KeyMsg, k KeyMap, traces map[cell]*trace.Trace) tea.Cmd {
	if !p.ready() {
		if len(p.queued) < 64 {
			p.queued, p.keys = append(p.queued, msg), k
		}
		return nil
	}
	p.flash = text.Text{}
	switch {
	case p.live != nil && key.Matches(msg, k.Next):
		p.liveNext()
	case key.Matches(msg, k.Next):
		p.setPos(p.pos() + 1)
	case key.Matches(msg, k.Prev):
		p.setPos(p.pos() - 1)
	case key.Matches(msg, k.First):
		p.setPos(0)
	case key.Matches(msg, k.Last):
		p.setPos(p.length() - 1)
	case key.Matches(msg, k.Violation):
		i := p.nextViolation()
		switch {
		case i < 0 && p.live != nil && !p.liveDone:
			// A live run's timeline is not over: what has not happened
			// may still happen.
			p.flash = text.New("no violation has happened yet: the live run goes on", "还没有发生违规：现场运行还在继续")
		case i < 0:
			p.flash = text.New("no violation in this timeline: every invariant holds", "这条时间线里没有违规：所有不变量都成立")
		default:
			p.setPos(i)
		}
	case key.Matches(msg, k.Divergence):
		switch {
		case !p.compare:
			p.flash = text.New("d jumps to where two implementations differ: press c to compare first", "d 跳到两种实现出现差异的地方：先按 c 进入对比")
		case p.diverge < 0:
			p.flash = text.New("the two timelines never differ", "两条时间线完全一致，没有差异")
		default:
			p.row = p.diverge
		}
	case key.Matches(msg, k.StopAt):
		p.stopAt = !p.stopAt
		p.flash = text.New("autoplay stops at each violation", "自动播放会在每个违规处停下")
		if !p.stopAt {
			p.flash = text.New("autoplay runs to the end", "自动播放一直放到结尾")
		}
	case key.Matches(msg, k.Play):
		if p.playing {
			p.stop()
			return nil
		}
		if p.pos() >= p.length()-1 && (p.live == nil || p.liveDone) {
			p.setPos(0)
		}
		p.playing = true
		return p.schedule()
	case key.Matches(msg, k.Faster):
		p.speed = min(p.speed+1, len(speeds)-1)
	case key.Matches(msg, k.Slower):
		p.speed = max(p.speed-1, 0)
	case p.fixed && (key.Matches(msg, k.SwitchImpl) || key.Matches(msg, k.Compare)):
		return nil
	case key.Matches(msg, k.SwitchImpl):
		p.at, p.hasAt = p.here(), true
		if p.compare {
			p.other = p.nextImpl(p.other, p.impl)
			p.otr = nil
		} else {
			p.impl = p.nextImpl(p.impl, "")
			p.tr = nil
		}
		return tea.Batch(p.wanted(traces), p.arrived(traces))
	case key.Matches(msg, k.Compare):
		p.at, p.hasAt = p.here(), true
		if p.compare {
			p.compare, p.otr, p.rows = false, nil, nil
		} else {
			p.compare = true
			p.other = p.partner()
			p.otr = nil
		}
		return tea.Batch(p.wanted(traces), p.arrived(traces))
	}
	return nil
}

// nextViolation is the first violation after the current position, wrapping
// around (the current one if it is the only one); -1 if there is none.
func (p *playerView) nextViolation() int {
	n := p.length()
	for d := 1; d <= n; d++ {
		i := (p.pos() + d) % n
		if p.isViolation(i) {
			return i
		}
	}
	return -1
}

func (p *playerView) isViolation(i int) bool {
	if !p.compare {
		return p.tr.Events[i].Kind == trace.KindViolation
	}
	r := p.rows[i]
	return r.l >= 0 && p.tr.Events[r.l].Kind == trace.KindViolation ||
		r.r >= 0 && p.otr.Events[r.r].Kind == trace.KindViolation
}

// nextImpl is the implementation after cur in catalogue order, then the
// locks in other languages this machine runs (or the course's order),
// skipping skip.
func (p *playerView) nextImpl(cur, skip string) string {
	var names []string
	for _, in := range lockimpl.Runnable() {
		names = append(names, in.Name)
	}
	if len(p.impls) > 1 {
		names = p.impls
	}
	i := slices.Index(names, cur)
	for d := 1; d < len(names); d++ {
		if n := names[(i+d)%len(names)]; n != skip {
			return n
		}
	}
	return cur
}

// partner is the implementation compare mode opens against the current one:
// the course's next one, or the lesson's fix.
func (p *playerView) partner() string {
	if len(p.impls) > 1 {
		return p.nextImpl(p.impl, p.impl)
	}
	return p.scenario.Fix(p.impl)
}
