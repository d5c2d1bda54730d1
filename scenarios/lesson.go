package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
)

// A lesson file is one failure mode, whole: its id, titles and story, the
// setup, the clients, the timeline, and the expectation row. docs/lessons.md
// describes the format with an annotated example; the built-in lessons in
// lessons/ are written in it. The format is line based, in the manner of
// etcd raft's testdata interaction files:
//
//	# a comment
//	verb arg key=value ...      a directive, at the start of a line
//	  en English text           indented lines belong to the directive
//	  zh 中文
//	verb arg   # a comment      to the end of the line
//
// A comment starts at a word that begins with #, on every line but the
// indented en and zh texts and the story, where # is text.
//
// ParseLesson reads such a file and checks everything it can before
// anything runs: unknown verbs, clients, servers, implementations and
// invariants, times that go backwards, a timeline that does not end, the
// bounds of limits.go, characters a terminal would act on. Each error
// names file:line:column and what was expected there.

// LessonError is a mistake in a lesson file, with its position.
type LessonError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *LessonError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// line is one line of a lesson file, split into fields with their columns.
type line struct {
	n      int // 1-based
	indent bool
	fields []string
	cols   []int // 1-based column of each field, in characters
	raw    string
}

// splitLine splits a line at spaces and tabs, in one pass: a field is a
// slice of the line, not built up a character at a time (which took 216 s
// for a word of 900 KB).
func splitLine(n int, raw string) line {
	l := line{n: n, raw: raw}
	l.indent = raw != "" && (raw[0] == ' ' || raw[0] == '\t')
	col := 1
	start := -1 // the byte where the current field began; -1 between fields
	for i, r := range raw {
		if r == ' ' || r == '\t' {
			if start >= 0 {
				l.fields = append(l.fields, raw[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
			l.cols = append(l.cols, col)
		}
		col++
	}
	if start >= 0 {
		l.fields = append(l.fields, raw[start:])
	}
	return l
}

// uncomment drops an end-of-line comment: the first field that begins
// with # and everything after it. A line that is only a comment keeps no
// fields.
func (l line) uncomment() line {
	for i, f := range l.fields {
		if !strings.HasPrefix(f, "#") {
			continue
		}
		if i > 0 {
			l.raw = strings.TrimRight(l.raw[:byteAt(l.raw, l.cols[i])], " \t")
		}
		l.fields, l.cols = l.fields[:i], l.cols[:i]
		break
	}
	return l
}

// isText says whether l is an indented text line ("en …", "zh …"): its #
// is text, never a comment.
func (l line) isText() bool {
	return l.indent && len(l.fields) > 0 && (l.fields[0] == "en" || l.fields[0] == "zh")
}

// byteAt is the byte offset of the 1-based character column col in raw.
func byteAt(raw string, col int) int {
	c := 1
	for off := range raw {
		if c == col {
			return off
		}
		c++
	}
	return len(raw)
}

// rest is the line's text from field i on, as written.
func (l line) rest(i int) string {
	if i >= len(l.fields) {
		return ""
	}
	// Columns count characters; find the byte offset of field i.
	return strings.TrimRight(l.raw[byteAt(l.raw, l.cols[i]):], " \t")
}

// lessonParser holds the state of one parse.
type lessonParser struct {
	file  string
	lines []line
	i     int

	s       Scenario
	clients map[string]bool
	now     time.Duration
	ended   bool
	steps   []func(t *sim.Timeline, cs map[string]*sim.Client)
	nodes   int // servers the lesson may name: 5 (Redlock's), or Setup.Nodes
	expect  map[string][]string
	seen    map[string]bool
	// held are the clients a hold stops and no unhold or crash has let go
	// yet, with the hold's line.
	held map[string]line
	// For the search (search.go): the clients' programs, the timeline's
	// verbs in order of first use, and the explore line.
	progs   []sim.Program
	used    []string
	explore *exploreArgs
	// For the bounds (limits.go): the client lines, the setup line's ttl,
	// and what reckon counted.
	decls    []clientDecl
	ttlAt    line
	ttlField int
	commands int64
}

func (p *lessonParser) errAt(l line, field int, format string, args ...any) error {
	col := 1
	if field < len(l.cols) {
		col = l.cols[field]
	} else if len(l.raw) > 0 {
		col = utf8.RuneCountInString(l.raw) + 1
	}
	return &LessonError{File: p.file, Line: l.n, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// ParseLesson reads a lesson file. name is what errors call the file.
func ParseLesson(name string, data []byte) (Scenario, error) {
	p := &lessonParser{file: name, clients: map[string]bool{}, seen: map[string]bool{},
		expect: map[string][]string{}, nodes: 5}
	if err := p.split(data); err != nil {
		return Scenario{}, err
	}
	if err := p.parse(); err != nil {
		return Scenario{}, err
	}
	return p.s, nil
}

// split reads the lines, keeping the story (everything after "story en" or
// "story zh", as written) apart.
func (p *lessonParser) split(data []byte) error {
	raws, err := fileLines(p.file, "lesson", data)
	if err != nil {
		return err
	}
	var story *strings.Builder
	var stories []*strings.Builder
	var langs []string
	for i, raw := range raws {
		n := i + 1
		l := splitLine(n, raw)
		if !l.isText() {
			l = l.uncomment()
		}
		if !l.indent && len(l.fields) == 2 && l.fields[0] == "story" && (l.fields[1] == "en" || l.fields[1] == "zh") {
			if slices.Contains(langs, l.fields[1]) {
				return p.errAt(l, 1, "a second story %s", l.fields[1])
			}
			story = &strings.Builder{}
			stories = append(stories, story)
			langs = append(langs, l.fields[1])
			continue
		}
		if story != nil {
			story.WriteString(raw + "\n")
			continue
		}
		if len(l.fields) == 0 || strings.HasPrefix(l.fields[0], "#") {
			continue
		}
		p.lines = append(p.lines, l)
	}
	for i, lang := range langs {
		text := strings.TrimSpace(stories[i].String()) + "\n"
		if lang == "en" {
			p.s.Story.EN = text
		} else {
			p.s.Story.ZH = text
		}
	}
	return nil
}

func (p *lessonParser) next() (line, bool) {
	if p.i >= len(p.lines) {
		return line{}, false
	}
	l := p.lines[p.i]
	p.i++
	return l, true
}

// text reads the indented en and zh lines after a directive. A text is
// shown on one line: a tab in it is a space.
func (p *lessonParser) text(at line) (sim.Text, error) {
	var en, zh textJoiner
	for p.i < len(p.lines) && p.lines[p.i].indent {
		l, _ := p.next()
		switch l.fields[0] {
		case "en":
			en.add(oneLine(l.rest(1)))
		case "zh":
			zh.add(oneLine(l.rest(1)))
		default:
			return sim.Text{}, p.errAt(l, 0, "want an \"en\" or \"zh\" line under %s, got %q", at.fields[0], l.fields[0])
		}
	}
	t := sim.Text{EN: en.b.String(), ZH: zh.b.String()}
	if t.EN == "" || t.ZH == "" {
		return t, p.errAt(at, 0, "%s needs an indented \"en\" line and a \"zh\" line below it", at.fields[0])
	}
	return t, nil
}

// textJoiner continues a text over several lines: English with a space,
// Chinese without. It writes into one builder: joining strings line by
// line copied the text so far each time.
type textJoiner struct{ b strings.Builder }

func (j *textJoiner) add(more string) {
	if j.b.Len() == 0 {
		j.b.WriteString(more)
		return
	}
	if r, _ := utf8.DecodeLastRuneInString(j.b.String()); r < 0x2E80 {
		j.b.WriteByte(' ')
	}
	j.b.WriteString(more)
}

// args reads key=value arguments from field from on; flags are keys
// without a value. Each key may appear once, and only the keys allowed.
func (p *lessonParser) args(l line, from int, allowed ...string) (map[string]string, map[string]int, error) {
	vals, at := map[string]string{}, map[string]int{}
	for i := from; i < len(l.fields); i++ {
		k, v, _ := strings.Cut(l.fields[i], "=")
		if !slices.Contains(allowed, k) {
			return nil, nil, p.errAt(l, i, "unknown argument %q to %s; valid: %s", k, l.fields[0], strings.Join(allowed, ", "))
		}
		if _, dup := vals[k]; dup {
			return nil, nil, p.errAt(l, i, "%s given twice", k)
		}
		vals[k], at[k] = v, i
	}
	return vals, at, nil
}

// duration reads the duration v of field; none may be longer than a
// lesson may run.
func (p *lessonParser) duration(l line, field int, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, p.errAt(l, field, "want a duration such as 30s, 1.5s or 2m, got %q", v)
	}
	if d > MaxLessonHorizon {
		k, _, _ := strings.Cut(l.fields[field], "=")
		return 0, p.errAt(l, field, "%s: %s is longer than a lesson may run (%s)", k, v, dur(MaxLessonHorizon))
	}
	return d, nil
}

func (p *lessonParser) parse() error {
	header := true
	for {
		l, ok := p.next()
		if !ok {
			break
		}
		if l.indent {
			return p.errAt(l, 0, "an indented line belongs under a directive that takes text (title, summary, say) or under expect")
		}
		verb := l.fields[0]
		if header && !slices.Contains(headerVerbs, verb) {
			header = false
			if err := p.finishHeader(l); err != nil {
				return err
			}
		}
		var err error
		if header {
			err = p.headerVerb(l)
		} else {
			err = p.timelineVerb(l)
		}
		if err != nil {
			return err
		}
	}
	if header {
		return &LessonError{p.file, p.lastLine() + 1, 1, "the file ends before its timeline: want client lines, then the timeline, ending with \"run end\""}
	}
	if !p.ended {
		return &LessonError{p.file, p.lastLine() + 1, 1, "the timeline never ends: want \"run end\" after the last step"}
	}
	if err := p.unlifted(); err != nil {
		return err
	}
	if len(p.expect) == 0 {
		return &LessonError{p.file, p.lastLine() + 1, 1, "no expect block: want \"expect\" with one indented line per implementation"}
	}
	if p.s.Story.EN == "" {
		return &LessonError{p.file, p.lastLine() + 1, 1, "no story: want \"story en\" followed by the story in Markdown, at the end of the file"}
	}
	steps := p.steps
	p.s.Script = func(t *sim.Timeline) {
		cs := map[string]*sim.Client{}
		for _, step := range steps {
			step(t, cs)
		}
	}
	p.s.Expect = p.expect
	if err := p.reckon(); err != nil {
		return err
	}
	p.s.Search = p.deriveSearch()
	if err := p.applyExplore(&p.s.Search); err != nil {
		return err
	}
	// A verb the explore line gave the search a move for is no longer
	// lacking.
	q := &p.s.Search
	q.Lacks = slices.DeleteFunc(q.Lacks, func(v string) bool {
		return v == "partition" && slices.Contains(q.Faults, sim.FaultPartition)
	})
	return nil
}

func (p *lessonParser) lastLine() int {
	if len(p.lines) == 0 {
		return 0
	}
	return p.lines[len(p.lines)-1].n
}

// headerVerbs come before the timeline: who the lesson is and its world.
var headerVerbs = []string{"lesson", "title", "summary", "naive", "fix", "mitigation", "setup", "explore"}

// timelineVerbs are the steps of a timeline, and what follows it.
var timelineVerbs = []string{"client", "say", "run", "hold", "unhold", "pause", "resume", "hang", "unhang",
	"crash", "partition", "drop-replies", "heal", "failover", "rejoin", "stop-server", "restart-server", "clock-jump", "slow", "expect"}

func (p *lessonParser) headerVerb(l line) error {
	verb := l.fields[0]
	if p.seen[verb] {
		return p.errAt(l, 0, "%s given twice", verb)
	}
	p.seen[verb] = true
	switch verb {
	case "lesson":
		if len(l.fields) != 2 || !validID(l.fields[1]) {
			return p.errAt(l, min(1, len(l.fields)-1), "want \"lesson ID\", the id in lower case letters, digits and dashes (e.g. get-then-del), at most %d characters", MaxLessonID)
		}
		p.s.ID = l.fields[1]
	case "title", "summary":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "%s takes no arguments: the text goes on indented en and zh lines below", verb)
		}
		t, err := p.text(l)
		if err != nil {
			return err
		}
		if verb == "title" {
			p.s.Title = t
		} else {
			p.s.Summary = t
		}
	case "naive":
		if len(l.fields) != 2 {
			return p.errAt(l, 1, "want \"naive IMPL\": the implementation the lesson opens with")
		}
		if _, err := lockimpl.Lookup(l.fields[1]); err != nil {
			return p.errAt(l, 1, "%v", err)
		}
		p.s.Naive = l.fields[1]
	case "fix":
		if len(l.fields) != 2 {
			return p.errAt(l, min(1, len(l.fields)-1), "want \"fix IMPL\": the implementation that fixes this bug, set beside the naive one")
		}
		if _, err := lockimpl.Lookup(l.fields[1]); err != nil {
			return p.errAt(l, 1, "%v", err)
		}
		p.s.FixImpl = l.fields[1]
	case "mitigation":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "mitigation takes no arguments")
		}
		p.s.Mitigation = true
	case "setup":
		return p.setup(l)
	case "explore":
		return p.exploreLine(l)
	}
	return nil
}

func validID(id string) bool {
	if id == "" || id[0] == '-' || len(id) > MaxLessonID {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func (p *lessonParser) setup(l line) error {
	vals, at, err := p.args(l, 1, "key", "ttl", "replica", "lag", "down-after", "rejoin", "liveness", "horizon", "stock", "nodes", "guard", "cluster")
	if err != nil {
		return err
	}
	s := &p.s.Setup
	for k, v := range vals {
		f := at[k]
		switch k {
		case "key":
			if v == "" {
				return p.errAt(l, f, "want key=NAME")
			}
			if err := p.keyLength(l, f, v); err != nil {
				return err
			}
			s.Key = v
		case "replica", "rejoin", "cluster":
			if v != "" {
				return p.errAt(l, f, "%s is a flag: write it without a value", k)
			}
			s.Replica = s.Replica || k == "replica"
			s.Rejoin = s.Rejoin || k == "rejoin"
			s.Cluster = s.Cluster || k == "cluster"
		case "ttl", "lag", "down-after", "liveness", "horizon":
			d, err := p.duration(l, f, v)
			if err != nil {
				return err
			}
			if d == 0 && k != "lag" {
				return p.errAt(l, f, "%s must be more than 0", k)
			}
			switch k {
			case "ttl":
				if d < MinLessonTTL {
					return p.errAt(l, f, "ttl: %s is shorter than a lesson's shortest lease (%s)", v, dur(MinLessonTTL))
				}
				s.TTL = d
				p.ttlAt, p.ttlField = l, f
			case "lag":
				s.Lag = d
			case "down-after":
				s.DownAfter = d
			case "liveness":
				s.LivenessBound = d
			case "horizon":
				s.Horizon = d
			}
		case "guard":
			g, err := sim.ParseGuard(v)
			if err != nil {
				return p.errAt(l, f, "%v", err)
			}
			s.Guard = g
		case "stock", "nodes":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || k == "nodes" && (n < 3 || n%2 == 0 || n > 9) {
				want := "a whole number above 0"
				if k == "nodes" {
					want = "an odd number of servers from 3 to 9"
				}
				return p.errAt(l, f, "%s: want %s, got %q", k, want, v)
			}
			if k == "stock" {
				s.Stock = n
			} else {
				s.Nodes, p.nodes = n, n
			}
		}
	}
	if s.Rejoin && !s.Replica {
		return p.errAt(l, at["rejoin"], "rejoin brings a failed primary back as a replica: it needs replica too")
	}
	for _, k := range []string{"lag", "down-after"} {
		if _, ok := vals[k]; ok && !s.Replica {
			return p.errAt(l, at[k], "%s is the replica's: it needs replica too", k)
		}
	}
	return nil
}

// finishHeader checks the header is whole when the timeline begins at l.
func (p *lessonParser) finishHeader(l line) error {
	for _, want := range []string{"lesson", "title", "summary", "naive"} {
		if !p.seen[want] {
			return p.errAt(l, 0, "want %q before the timeline (a lesson begins with lesson, title, summary and naive)", want)
		}
	}
	return nil
}

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
		return p.errAt(l, 0, "unknown verb %q; valid: %s", verb, strings.Join(timelineVerbs, ", "))
	}
	if !slices.Contains(p.used, verb) {
		p.used = append(p.used, verb)
	}
	switch verb {
	case "client":
		return p.client(l)
	case "say":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "say takes no arguments: the text goes on indented en and zh lines below")
		}
		t, err := p.text(l)
		if err != nil {
			return err
		}
		p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.Say(t.EN, t.ZH) })
	case "run":
		return p.run(l)
	case "hold":
		return p.hold(l)
	case "unhold", "pause", "resume", "hang", "unhang", "crash", "heal":
		name, err := p.clientArg(l, 1)
		if err != nil {
			return err
		}
		if len(l.fields) > 2 {
			return p.errAt(l, 2, "%s takes one client", verb)
		}
		act := map[string]func(*sim.Client){
			"unhold": (*sim.Client).Unhold, "pause": (*sim.Client).Pause, "resume": (*sim.Client).Resume,
			"hang": (*sim.Client).Hang, "unhang": (*sim.Client).Unhang, "crash": (*sim.Client).Crash,
			"heal": (*sim.Client).Heal,
		}[verb]
		p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { act(cs[name]) })
		if verb == "unhold" || verb == "crash" {
			delete(p.held, name)
		}
	case "partition", "drop-replies":
		name, err := p.clientArg(l, 1)
		if err != nil {
			return err
		}
		if len(l.fields) < 3 {
			if verb == "drop-replies" {
				return p.errAt(l, 2, "want the servers whose replies the client loses: drop-replies A redis-3")
			}
			return p.errAt(l, 2, "want the servers the client is cut off from: partition A redis-4 redis-5")
		}
		var nodes []int
		for i := 2; i < len(l.fields); i++ {
			n, err := p.server(l, i)
			if err != nil {
				return err
			}
			nodes = append(nodes, n)
		}
		if verb == "drop-replies" {
			p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].DropReplies(nodes...) })
			break
		}
		p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].Partition(nodes...) })
	case "failover", "rejoin":
		if len(l.fields) != 1 {
			return p.errAt(l, 1, "%s takes no arguments", verb)
		}
		if verb == "rejoin" && !p.s.Setup.Rejoin {
			return p.errAt(l, 0, "rejoin needs \"rejoin\" in the setup line")
		}
		if verb == "failover" {
			p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.Failover() })
		} else {
			p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.Rejoin() })
		}
	case "stop-server", "restart-server":
		if len(l.fields) != 2 {
			return p.errAt(l, min(2, len(l.fields)), "want %s redis-N", verb)
		}
		n, err := p.server(l, 1)
		if err != nil {
			return err
		}
		if verb == "stop-server" {
			p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.StopServer(n) })
		} else {
			p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.RestartServer(n) })
		}
	case "clock-jump", "slow":
		if len(l.fields) != 3 {
			want := "want clock-jump redis-N by=DURATION"
			if verb == "slow" {
				want = "want slow redis-N by=DURATION (by=0s: fast again)"
			}
			return p.errAt(l, min(2, len(l.fields)), "%s", want)
		}
		n, err := p.server(l, 1)
		if err != nil {
			return err
		}
		vals, at, err := p.args(l, 2, "by")
		if err != nil {
			return err
		}
		d, err := p.duration(l, at["by"], vals["by"])
		if err != nil {
			return err
		}
		if verb == "slow" {
			p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.Slow(n, d) })
			break
		}
		p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.ClockJump(n, d) })
	case "expect":
		return p.expectBlock(l)
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
		return p.errAt(l, 1, "want client NAME [start=D] [retry=D] [backoff=D] [jitter] [prep=D] [work=D] [fail=D] [attempts=N] [reenter] [lease=D] [key=NAME]")
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
		return p.errAt(l, 0, "clients are declared before time passes (time is already %s)", sim.Secs(p.now))
	}
	if len(p.clients) == MaxLessonClients {
		return p.errAt(l, 1, "client %s is the %s; a lesson has at most %d clients", name, ordinal(MaxLessonClients+1), MaxLessonClients)
	}
	vals, at, err := p.args(l, 2, "start", "retry", "backoff", "jitter", "prep", "work", "fail", "attempts", "reenter", "lease", "key")
	if err != nil {
		return err
	}
	var prog sim.Program
	for k, v := range vals {
		f := at[k]
		switch k {
		case "reenter", "jitter":
			if v != "" {
				return p.errAt(l, f, "%s is a flag: write it without a value", k)
			}
			prog.Reenter = prog.Reenter || k == "reenter"
			prog.Jitter = prog.Jitter || k == "jitter"
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
		return p.errAt(l, f, "fail: the work fails before it is done: want a duration above 0 and shorter than work (%s)", sim.Secs(prog.Work))
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
		return p.errAt(l, at["until"], "time goes backwards: %s is before %s, where the timeline already is", sim.Secs(d), sim.Secs(p.now))
	}
	p.now = d
	p.step(func(tl *sim.Timeline, _ map[string]*sim.Client) { tl.RunUntil(d) })
	return nil
}

// holdStages are the stages "hold C after=STAGE" may name, and "at" points.
var (
	holdStages = []sim.Op{sim.OpAcquire, sim.OpRelease, sim.OpRenew, sim.OpReenter, sim.OpLeave}
	holdPoints = []sim.Op{sim.OpRead, sim.OpWrite}
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
		op := sim.Op(vals["at"])
		if !slices.Contains(holdPoints, op) {
			return p.errAt(l, at["at"], "at: want read or write, got %q", vals["at"])
		}
		p.step(func(_ *sim.Timeline, cs map[string]*sim.Client) { cs[name].HoldAt(op) })
	default:
		stage, count, ok := strings.Cut(vals["after"], ":")
		op := sim.Op(stage)
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

func opNames(ops []sim.Op) string {
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
	for _, inv := range sim.Invariants {
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
				return p.errAt(e, i, "unknown invariant %q; valid: %s, or - for none", inv, strings.Join(invs, ", "))
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
