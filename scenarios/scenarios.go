// Package scenarios is lockstep's catalogue of failure modes: one lesson
// file per classic Redis lock bug (lessons/*.lesson, embedded), each a
// scripted timeline with its story and its expectation row — which
// implementation survives which bug. ParseLesson reads the same format from
// an instructor's own files. The engine that plays them lives in
// scenarios/sim.
//
// Adding a failure mode: one file in lessons/, named NNN-<id>.lesson (the
// number orders the catalogue). docs/lessons.md describes the format.
package scenarios

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// Scenario is one failure mode: a lesson.
type Scenario struct {
	ID      string
	Title   text.Text
	Summary text.Text
	// Story is the failure mode told in full, in Markdown, for its page in
	// docs/ (English; Chinese where the lesson has it).
	Story text.Text
	// Naive is the implementation this failure mode is about: the default
	// for "lockstep play".
	Naive string
	// FixImpl is the implementation that fixes the bug, as the lesson names
	// it ("fix IMPL"); empty: Fix works one out from the expectations.
	FixImpl string
	// Mitigation marks a timeline that shows a fix at work (an operational
	// rule, not an implementation): every implementation is expected to
	// keep every invariant, the naive one included.
	Mitigation bool
	Setup      sim.Setup
	Script     sim.Script
	// Search is how lockstep check --explore searches this failure mode
	// with the explorer (search.go).
	Search Search
	// Expect is the lesson's expectation row: for each implementation it
	// names, the invariants that break (empty: none). An implementation it
	// does not name has no expectation: its verdicts are reported, not
	// judged.
	Expect map[string][]string
	// Source is the lesson file the scenario was read from, and File its
	// name ("lessons/030-get-then-del.lesson" for a built-in one).
	Source []byte
	File   string
}

// Run plays the scenario against impl on embedded servers.
func (s Scenario) Run(impl lockimpl.Info) (*trace.Trace, error) {
	return s.RunOn(context.Background(), impl, nil)
}

// RunOn plays the scenario against impl on target's real servers, or on
// embedded ones when target is nil.
func (s Scenario) RunOn(ctx context.Context, impl lockimpl.Info, target *backend.Target) (*trace.Trace, error) {
	tr, err := sim.RunOn(ctx, target, s.Setup, s.Script, impl)
	if err != nil {
		return nil, fmt.Errorf("%s × %s: %w", s.ID, impl.Name, err)
	}
	tr.Scenario, tr.Title = s.ID, s.Title
	return tr, nil
}

// Expected returns the invariants expected to break when the scenario runs
// against impl, in invariant order, and whether the lesson has an
// expectation for impl at all.
func (s Scenario) Expected(impl string) ([]string, bool) {
	exp, ok := s.Expect[impl]
	return slices.Clone(exp), ok
}

// Over lays lessons of an author's over the built-in ones, for one run: a
// lesson that carries a built-in's id takes its place, so an edited copy
// of a built-in lesson is checked and played as it is; the others follow,
// in their order.
func Over(mine []Scenario) []Scenario {
	all := All()
	for _, s := range mine {
		if i := slices.IndexFunc(all, func(b Scenario) bool { return b.ID == s.ID }); i >= 0 {
			all[i] = s
		} else {
			all = append(all, s)
		}
	}
	return all
}

// Replaces says which built-in lesson s takes the place of for a run (see
// Over): the one with its id, unless s is that lesson itself.
func (s Scenario) Replaces() (Scenario, bool) {
	b, err := Lookup(s.ID)
	return b, err == nil && s.File != b.File
}

// ReplaceNote is the line that says s takes a built-in lesson's place,
// or "" when it does not.
func (s Scenario) ReplaceNote() string {
	b, ok := s.Replaces()
	if !ok {
		return ""
	}
	// The file's name is the user's: shown with its escape codes escaped.
	return fmt.Sprintf("%s replaces the built-in lesson %s (%s) for this run", text.Clean(s.File), s.ID, path.Join("scenarios", b.File))
}

//go:embed lessons/*.lesson
var builtin embed.FS

// catalogue is the built-in lessons, in the order of their file names,
// parsed the first time a command asks for them: a start that needs none
// (--version, help, completion of a flag) does not pay for 30-odd lessons.
var catalogue = sync.OnceValue(func() []Scenario { return mustLoad(builtin, "lessons") })

func mustLoad(fsys fs.FS, dir string) []Scenario {
	scs, err := LoadLessons(fsys, dir)
	if err != nil {
		panic("scenarios: a built-in lesson does not parse: " + err.Error())
	}
	return scs
}

// LoadLessons reads every *.lesson file in dir, in the order of their names.
// Two lessons with one id are an error.
func LoadLessons(fsys fs.FS, dir string) ([]Scenario, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.lesson"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no *.lesson files", dir)
	}
	slices.Sort(names)
	var scs []Scenario
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		s, err := ParseLesson(name, data)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(scs, func(o Scenario) bool { return o.ID == s.ID }); i >= 0 {
			return nil, fmt.Errorf("%s: lesson %s is also %s", name, s.ID, scs[i].File)
		}
		s.Source, s.File = data, name
		scs = append(scs, s)
	}
	return scs, nil
}

// All returns the failure modes in teaching order.
func All() []Scenario { return slices.Clone(catalogue()) }

// IDs returns the scenario ids in teaching order.
func IDs() []string {
	ids := make([]string, len(catalogue()))
	for i, s := range catalogue() {
		ids[i] = s.ID
	}
	return ids
}

// Lookup finds a scenario by id. The error lists the valid ids, and the
// one likely meant (suggest.Unknown).
func Lookup(id string) (Scenario, error) {
	for _, s := range catalogue() {
		if s.ID == id {
			return s, nil
		}
	}
	return Scenario{}, errors.New(suggest.Unknown(text.New("scenario", "场景"), id, IDs()).EN)
}
