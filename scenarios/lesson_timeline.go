package scenarios

// A lesson's timeline, from its first client to "run end", and the expect
// block after it: each verb checked and turned into a step of the script.
// The timeline's own verbs are here; a fault's verbs (pause, crash,
// stop-server, …) are its record's, in scenarios/sim (sim.LessonVerbs):
// what each takes and what its step does.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/narrate"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// ownVerbs are the timeline's own steps, the parser's: every other verb
// of a timeline is a fault's (faultVerbs), and expect follows them all.
var ownVerbs = []string{"client", "say", "run", "hold", "unhold"}

// faultVerbs are the timeline's verbs that faults give, by name: each
// fault's record in scenarios/sim says what its verbs take and do
// (sim.LessonVerbs).
var faultVerbs = func() map[string]sim.LessonVerb {
	m := map[string]sim.LessonVerb{}
	for _, v := range sim.LessonVerbs() {
		m[v.Name] = v
	}
	return m
}()

// timelineVerbs are the steps of a timeline, and what follows it.
var timelineVerbs = func() []string {
	verbs := slices.Clone(ownVerbs)
	for _, v := range sim.LessonVerbs() {
		verbs = append(verbs, v.Name)
	}
	return append(verbs, "expect")
}()

// step adds a step of the timeline.
func (p *lessonParser) step(f func(t *sim.Timeline, cs map[string]*sim.Client)) {
	p.steps = append(p.steps, f)
}

func (p *lessonParser) timelineVerb(l line) error {
	verb := l.fields[0]
	if p.ended && verb != "expect" {
		return p.errAt(l, 0, "the timeline has ended with \"run end\"; only expect may follow")
	}
	if verb != "expect" && len(p.steps) == MaxLessonSteps {
		return p.errAt(l, 0, "the %s step; a timeline has at most %d steps", ordinal(MaxLessonSteps+1), MaxLessonSteps)
	}
	if !slices.Contains(timelineVerbs, verb) {
		if slices.Contains(headerVerbs, verb) {
			return p.errAt(l, 0, "%s belongs before the first client", verb)
		}
		return p.errAt(l, 0, "%s", unknown(text.New("verb", "动词"), verb, timelineVerbs))
	}
	if !slices.Contains(p.used, verb) {
		p.used = append(p.used, verb)
	}
	switch verb {
	case "client":
		return p.client(l)
	case "say":
		return p.say(l)
	case "run":
		return p.run(l)
	case "hold":
		return p.hold(l)
	case "unhold":
		return p.unhold(l)
	case "expect":
		return p.expectBlock(l)
	}
	return p.faultVerb(l, faultVerbs[verb])
}

// say reads a narration step: its text is on the indented lines below.
func (p *lessonParser) say(l line) error {
	if len(l.fields) != 1 {
		return p.errAt(l, 1, "say takes no arguments: the text goes on indented en and zh lines below")
	}
	t, err := p.text(l)
	if err != nil {
		return err
	}
	p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.Say(t.EN, t.ZH) })
	return nil
}

// unhold reads "unhold C": the held client goes on.
func (p *lessonParser) unhold(l line) error {
	name, err := p.oneClient(l)
	if err != nil {
		return err
	}
	p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].Unhold() })
	delete(p.held, name)
	return nil
}

// oneClient reads the one client a verb takes.
func (p *lessonParser) oneClient(l line) (string, error) {
	name, err := p.clientArg(l, 1)
	if err != nil {
		return "", err
	}
	if len(l.fields) > 2 {
		return "", p.errAt(l, 2, "%s takes one client", l.fields[0])
	}
	return name, nil
}

// faultVerb reads a verb a fault gives (v): its arguments, as v.Takes
// says, and the step v.Do makes of them.
func (p *lessonParser) faultVerb(l line, v sim.LessonVerb) error {
	verb := l.fields[0]
	want := func(form string) string {
		if v.Usage != "" {
			return v.Usage
		}
		return "want " + form
	}
	var (
		name string
		at   sim.VerbStep
		err  error
	)
	switch v.Takes {
	case sim.TakesNothing:
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "%s takes no arguments", verb)
		}
	case sim.TakesClient:
		if name, err = p.oneClient(l); err != nil {
			return err
		}
	case sim.TakesClientServers:
		if name, err = p.clientArg(l, 1); err != nil {
			return err
		}
		if len(l.fields) < 3 {
			return p.errAt(l, 2, "%s", want(verb+" C redis-N …"))
		}
		for i := 2; i < len(l.fields); i++ {
			n, err := p.server(l, i)
			if err != nil {
				return err
			}
			at.Nodes = append(at.Nodes, n)
		}
	case sim.TakesServer, sim.TakesServerBy:
		form, args := verb+" redis-N", 2
		if v.Takes == sim.TakesServerBy {
			form, args = verb+" redis-N by=DURATION", 3
		}
		if len(l.fields) != args {
			return p.errAt(l, min(2, len(l.fields)), "%s", want(form))
		}
		n, err := p.server(l, 1)
		if err != nil {
			return err
		}
		at.Nodes = []int{n}
		if v.Takes == sim.TakesServerBy {
			vals, f, err := p.args(l, 2, "by")
			if err != nil {
				return err
			}
			if at.By, err = p.duration(l, f["by"], vals["by"]); err != nil {
				return err
			}
		}
	}
	if v.Needs != nil {
		if msg := v.Needs(p.s.Setup); msg != "" {
			return p.errAt(l, 0, "%s", msg)
		}
	}
	p.step(func(tl *sim.Timeline, cs map[string]*sim.Client) {
		at := at
		at.Client = cs[name]
		v.Do(tl, at)
	})
	if v.EndsHold {
		delete(p.held, name)
	}
	return nil
}

// clientArg reads a declared client's name from field i.
func (p *lessonParser) clientArg(l line, i int) (string, error) {
	if i >= len(l.fields) {
		return "", p.errAt(l, i, "want a client name after %s", l.fields[0])
	}
	name := l.fields[i]
	if !p.clients[name] {
		return "", p.errAt(l, i, "unknown client %q; declared: %s", name, strings.Join(sortedKeys(p.clients), ", "))
	}
	return name, nil
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// server reads "redis-N" from field i: node N-1.
func (p *lessonParser) server(l line, i int) (int, error) {
	v := l.fields[i]
	n, err := strconv.Atoi(strings.TrimPrefix(v, "redis-"))
	if !strings.HasPrefix(v, "redis-") || err != nil || n < 1 || n > p.nodes {
		return 0, p.errAt(l, i, "want a server redis-1 … redis-%d, got %q", p.nodes, v)
	}
	return n - 1, nil
}

func (p *lessonParser) client(l line) error {
	if len(l.fields) < 2 {
		return p.errAt(l, 1, "want client NAME [start=D] [retry=D] [backoff=D] [jitter] [prep=D] [work=D] [fail=D] [attempts=N] [reenter] [check] [read] [lease=D] [key=NAME]")
	}
	name := l.fields[1]
	if p.clients[name] {
		return p.errAt(l, 1, "client %s declared twice", name)
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') || len(name) > 8 {
			return p.errAt(l, 1, "a client's name is up to 8 letters and digits, e.g. A, B or C; got %q", name)
		}
	}
	if p.now > 0 {
		return p.errAt(l, 0, "clients are declared before time passes (time is already %s)", narrate.Secs(p.now))
	}
	if len(p.clients) == MaxLessonClients {
		return p.errAt(l, 1, "client %s is the %s; a lesson has at most %d clients", name, ordinal(MaxLessonClients+1), MaxLessonClients)
	}
	vals, at, err := p.args(l, 2, "start", "retry", "backoff", "jitter", "prep", "work", "fail", "attempts", "reenter", "lease", "key", "check", "read")
	if err != nil {
		return err
	}
	var prog sim.Program
	for k, v := range vals {
		f := at[k]
		switch k {
		case "reenter", "jitter", "check", "read":
			if v != "" {
				return p.errAt(l, f, "%s is a flag: write it without a value", k)
			}
			prog.Reenter = prog.Reenter || k == "reenter"
			prog.Jitter = prog.Jitter || k == "jitter"
			prog.Check = prog.Check || k == "check"
			prog.Read = prog.Read || k == "read"
		case "attempts":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return p.errAt(l, f, "attempts: want a whole number above 0, got %q", v)
			}
			prog.Attempts = n
		case "key":
			if v == "" {
				return p.errAt(l, f, "want key=NAME: the lock's key this client takes")
			}
			if err := p.keyLength(l, f, v); err != nil {
				return err
			}
			prog.Key = v
			p.s.Setup.ClientKeys = p.s.Setup.ClientKeys || v != p.s.Setup.WithDefaults().Key
		default:
			d, err := p.duration(l, f, v)
			if err != nil {
				return err
			}
			if (k == "retry" || k == "backoff") && d < MinLessonWait {
				return p.errAt(l, f, "%s: %s is shorter than a lesson's shortest wait (%s)", k, v, dur(MinLessonWait))
			}
			if k == "lease" && d < MinLessonTTL {
				return p.errAt(l, f, "lease: %s is shorter than a lesson's shortest lease (%s)", v, dur(MinLessonTTL))
			}
			switch k {
			case "start":
				prog.Start = d
			case "retry":
				prog.Retry = d
			case "backoff":
				prog.Backoff = d
			case "prep":
				prog.Prep = d
			case "work":
				prog.Work = d
			case "fail":
				prog.Fail = d
			case "lease":
				prog.Lease = d
			}
		}
	}
	first := prog.Retry
	if first == 0 {
		first = sim.DefaultRetry
	}
	if prog.Backoff > 0 && prog.Backoff < first {
		return p.errAt(l, at["backoff"], "backoff is the cap of the doubling wait: want at least retry")
	}
	if f, ok := at["fail"]; ok && (prog.Fail <= 0 || prog.Fail >= prog.Work) {
		return p.errAt(l, f, "fail: the work fails before it is done: want a duration above 0 and shorter than work (%s)", narrate.Secs(prog.Work))
	}
	p.clients[name] = true
	p.progs = append(p.progs, prog)
	decl := clientDecl{l: l, field: 1, prog: prog, leaseField: at["lease"]}
	if f, ok := at["retry"]; ok {
		decl.field = f
	}
	p.decls = append(p.decls, decl)
	p.step(func(tl *sim.Timeline, cs map[string]*sim.Client) { cs[name] = tl.Client(name, prog) })
	return nil
}

func (p *lessonParser) run(l line) error {
	if len(l.fields) != 2 {
		return p.errAt(l, min(1, len(l.fields)), "want \"run until=D\" (let the world run to time D) or \"run end\" (until every client is done)")
	}
	if l.fields[1] == "end" {
		p.ended = true
		p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.RunToEnd() })
		return nil
	}
	vals, at, err := p.args(l, 1, "until")
	if err != nil {
		return err
	}
	d, err := p.duration(l, at["until"], vals["until"])
	if err != nil {
		return err
	}
	if d < p.now {
		return p.errAt(l, at["until"], "time goes backwards: %s is before %s, where the timeline already is", narrate.Secs(d), narrate.Secs(p.now))
	}
	p.now = d
	p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.RunUntil(d) })
	return nil
}

// holdStages are the stages "hold C after=STAGE" may name, and "at" points.
var (
	holdStages = []trace.Op{trace.OpAcquire, trace.OpRelease, trace.OpRenew, trace.OpReenter, trace.OpLeave}
	holdPoints = []trace.Op{trace.OpRead, trace.OpWrite}
)

func (p *lessonParser) hold(l line) error {
	name, err := p.clientArg(l, 1)
	if err != nil {
		return err
	}
	vals, at, err := p.args(l, 2, "after", "at")
	if err != nil {
		return err
	}
	switch {
	case len(vals) != 1:
		return p.errAt(l, 2, "want hold %s after=STAGE:N (stop after its N-th command in that stage) or hold %s at=read|write", name, name)
	case at["at"] > 0:
		op := trace.Op(vals["at"])
		if !slices.Contains(holdPoints, op) {
			return p.errAt(l, at["at"], "at: want read or write, got %q", vals["at"])
		}
		p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].HoldAt(op) })
	default:
		stage, count, ok := strings.Cut(vals["after"], ":")
		op := trace.Op(stage)
		n, err := strconv.Atoi(count)
		if !ok || err != nil || n < 1 || !slices.Contains(holdStages, op) {
			return p.errAt(l, at["after"], "after: want STAGE:N with STAGE one of %s and N ≥ 1, e.g. after=release:1; got %q", opNames(holdStages), vals["after"])
		}
		p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].HoldAfter(op, n) })
	}
	if p.held == nil {
		p.held = map[string]line{}
	}
	if _, already := p.held[name]; !already {
		p.held[name] = l
	}
	return nil
}

// unlifted is the error for a hold that nothing lets go before the run
// ends: the client would stay stopped to the end, silently.
func (p *lessonParser) unlifted() error {
	var first *line
	name := ""
	for n, l := range p.held {
		if first == nil || l.n < first.n {
			first, name = &l, n
		}
	}
	if first == nil {
		return nil
	}
	return p.errAt(*first, 0, "hold %s is never lifted: want \"unhold %s\" (or \"crash %s\") before \"run end\"; a held client stays stopped to the end", name, name, name)
}

func opNames(ops []trace.Op) string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

// expectBlock reads the expectation row: one indented line per
// implementation, naming the invariants that break, or "-" for none.
func (p *lessonParser) expectBlock(l line) error {
	if !p.ended {
		return p.errAt(l, 0, "expect comes after the timeline's \"run end\"")
	}
	if len(p.expect) > 0 {
		return p.errAt(l, 0, "expect given twice")
	}
	if len(l.fields) != 1 {
		return p.errAt(l, 1, "expect takes no arguments: one indented line per implementation follows")
	}
	var invs []string
	for _, inv := range invariant.Infos() {
		invs = append(invs, inv.ID)
	}
	for p.i < len(p.lines) && p.lines[p.i].indent {
		e, _ := p.next()
		impl := e.fields[0]
		if _, err := lockimpl.Lookup(impl); err != nil {
			return p.errAt(e, 0, "%v", err)
		}
		if _, dup := p.expect[impl]; dup {
			return p.errAt(e, 0, "%s has a second expectation", impl)
		}
		if len(e.fields) < 2 {
			return p.errAt(e, 1, "want the invariants %s breaks here (%s), or - for none", impl, strings.Join(invs, " "))
		}
		broken := []string{}
		if len(e.fields) == 2 && e.fields[1] == "-" {
			p.expect[impl] = broken
			continue
		}
		for i := 1; i < len(e.fields); i++ {
			inv := e.fields[i]
			if !slices.Contains(invs, inv) {
				return p.errAt(e, i, "%s, or - for none", unknown(text.New("invariant", "不变量"), inv, invs))
			}
			if slices.Contains(broken, inv) {
				return p.errAt(e, i, "%s named twice", inv)
			}
			broken = append(broken, inv)
		}
		// In the order of the invariants, as traces give them.
		slices.SortFunc(broken, func(a, b string) int { return slices.Index(invs, a) - slices.Index(invs, b) })
		p.expect[impl] = broken
	}
	if len(p.expect) == 0 {
		return p.errAt(l, 0, "expect needs one indented line per implementation: NAME then the invariants it breaks, or -")
	}
	return nil
}
