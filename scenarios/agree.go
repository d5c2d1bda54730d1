package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
)

// Agreement is one cell of lockstep check --explore: what a lesson's
// timeline breaks under an implementation beside what the explorer finds
// in every schedule of the lesson's search (Scenario.Search).
type Agreement struct {
	Scenario string `json:"scenario"`
	Impl     string `json:"impl"`
	// Judged says the lesson has an expectation for the implementation;
	// Lesson is it (the invariants that break; empty: none).
	Judged bool     `json:"judged"`
	Lesson []string `json:"lesson"`
	// Found is what the search broke, each with the length of its shortest
	// schedule in Moves.
	Found []string       `json:"found"`
	Moves map[string]int `json:"moves"`
	// Missing are invariants the lesson breaks and the search did not;
	// Extra the ones the search broke and the lesson does not.
	Missing []string `json:"missing"`
	Extra   []string `json:"extra"`
	// States, Depth and Complete say how far the search went.
	States   int  `json:"states"`
	Depth    int  `json:"depth"`
	Complete bool `json:"complete"`
	// Command makes the search by hand.
	Command string `json:"command"`
}

// Agrees reports whether the search broke exactly what the lesson breaks.
func (a Agreement) Agrees() bool { return len(a.Missing) == 0 && len(a.Extra) == 0 }

// Agree searches every lesson × implementation cell as the lesson's Search
// says and sets the result beside the lesson's expectation. Lessons whose
// searches are the same (explore.Options.Key) share them. progress, when
// set, is called after each search with how many of how many are done.
func Agree(ctx context.Context, lessons []Scenario, impls []lockimpl.Info, progress func(done, total int)) ([]Agreement, error) {
	type key struct {
		impl string
		opts string
	}
	results := map[key]explore.Result{}
	var todo []key
	for _, s := range lessons {
		for _, in := range impls {
			k := key{in.Name, s.Options(in.Name).Key()}
			if _, ok := results[k]; !ok && !slices.Contains(todo, k) {
				todo = append(todo, k)
			}
		}
	}
	done := 0
	var out []Agreement
	for _, s := range lessons {
		for _, in := range impls {
			opts := s.Options(in.Name)
			k := key{in.Name, opts.Key()}
			r, ok := results[k]
			if !ok {
				var err error
				if r, err = explore.Search(ctx, in, opts); err != nil {
					return nil, fmt.Errorf("%s × %s: %w", s.ID, in.Name, err)
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				results[k] = r
				done++
				if progress != nil {
					progress(done, len(todo))
				}
			}
			a := Agreement{Scenario: s.ID, Impl: in.Name, Found: []string{}, Moves: map[string]int{},
				States: r.States, Depth: r.Depth, Complete: r.Complete, Command: s.Command(in.Name)}
			a.Lesson, a.Judged = s.Expect[in.Name]
			if a.Lesson == nil {
				a.Lesson = []string{}
			}
			for _, f := range r.Found {
				a.Found = append(a.Found, f.Invariant)
				a.Moves[f.Invariant] = f.Moves
			}
			if a.Judged {
				for _, inv := range a.Lesson {
					if !slices.Contains(a.Found, inv) {
						a.Missing = append(a.Missing, inv)
					}
				}
				for _, inv := range a.Found {
					if !slices.Contains(a.Lesson, inv) {
						a.Extra = append(a.Extra, inv)
					}
				}
			}
			out = append(out, a)
		}
	}
	return out, nil
}
