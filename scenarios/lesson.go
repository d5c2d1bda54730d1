package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
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

// unknown is the message for name, a what that is none of valid, as every
// unknown name of lockstep's is said (suggest.Unknown): the valid ones,
// and the one likely meant when name is a near miss. The files' errors are
// English.
func unknown(what text.Text, name string, valid []string) string {
	return suggest.Unknown(what, name, valid).EN
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
	// One of the search's clients writes, however many the lesson reads.
	q.Readers = min(q.Readers, q.Clients-1)
	q.Lacks = slices.DeleteFunc(q.Lacks, func(name string) bool {
		v := faultVerbs[name]
		return v.Search == sim.SearchAsked && slices.Contains(q.Faults, v.Fault)
	})
	return nil
}

func (p *lessonParser) lastLine() int {
	if len(p.lines) == 0 {
		return 0
	}
	return p.lines[len(p.lines)-1].n
}
