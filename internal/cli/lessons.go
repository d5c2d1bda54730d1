package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
)

// readLesson reads the instructor's lesson file --lesson names.
func readLesson(path string) (scenarios.Scenario, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return scenarios.Scenario{}, errUsage{fmt.Errorf("%s is a directory: --lesson takes one lesson file (check --lessons and lockstep --lessons take a directory)", path)}
	}
	return readLessonFile(path)
}

// readLessonFile reads an instructor's lesson file: a regular file of at
// most scenarios.MaxLessonSize bytes (readFile), parsed whole.
func readLessonFile(path string) (scenarios.Scenario, error) {
	data, err := readFile(path, "lesson", scenarios.MaxLessonSize)
	if err != nil {
		return scenarios.Scenario{}, err
	}
	s, err := scenarios.ParseLesson(path, data)
	if err != nil {
		return scenarios.Scenario{}, errUsage{err}
	}
	s.Source, s.File = data, path
	return s, nil
}

// maxDirLessons bounds the lessons of one directory, as a course's lesson
// lines are bounded (scenarios.MaxCourseLessons).
const maxDirLessons = scenarios.MaxCourseLessons

// readLessonDir reads every *.lesson file in dir, in the order of their
// names. A lesson with a built-in lesson's id takes its place for the run
// (scenarios.Over; the commands say so, noteReplaced). A mistake in one
// file does not hide those in the next: the error names every file's
// first one.
func readLessonDir(dir string) ([]scenarios.Scenario, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, errUsage{err}
	}
	if !st.IsDir() {
		return nil, errUsage{fmt.Errorf("%s is not a directory: --lessons takes a directory of *.lesson files (play --lesson takes one file)", dir)}
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.lesson"))
	if err != nil {
		return nil, errUsage{err}
	}
	if len(names) == 0 {
		return nil, errUsage{fmt.Errorf("%s has no *.lesson files; lockstep lessons show ID prints a built-in one to start from", dir)}
	}
	if len(names) > maxDirLessons {
		return nil, errUsage{fmt.Errorf("%s has %d *.lesson files; a directory of lessons has at most %d", dir, len(names), maxDirLessons)}
	}
	var scs []scenarios.Scenario
	var errs []error
	for _, name := range names {
		s, err := readLessonFile(name)
		if err != nil {
			errs = append(errs, unwrapUsage(err))
			continue
		}
		if i := slices.IndexFunc(scs, func(o scenarios.Scenario) bool { return o.ID == s.ID }); i >= 0 {
			errs = append(errs, fmt.Errorf("%s: lesson %s is also %s", name, s.ID, scs[i].File))
			continue
		}
		scs = append(scs, s)
	}
	if len(errs) > 0 {
		return nil, errUsage{errors.Join(errs...)}
	}
	return scs, nil
}

// unwrapUsage is the mistake an errUsage reports, so that several join
// into one.
func unwrapUsage(err error) error {
	if u, ok := err.(errUsage); ok {
		return u.error
	}
	return err
}

// noteReplaced says on w, for each lesson that takes a built-in lesson's
// place for this run, which file replaces which lesson.
func noteReplaced(w io.Writer, lessons []scenarios.Scenario) {
	for _, s := range lessons {
		if note := s.ReplaceNote(); note != "" {
			fmt.Fprintf(w, "lockstep: %s\n", note)
		}
	}
}

// cmdLessons prints a built-in lesson's file: a starting point to copy.
func cmdLessons(pos []string, stdout io.Writer) (int, error) {
	subs := []string{"list", "show"}
	switch {
	case len(pos) == 0:
		return 0, errUsage{errors.New("lessons needs a subcommand: list (the built-in lessons, with their files) or show ID (one lesson's file)")}
	case !slices.Contains(subs, pos[0]):
		if s := suggest(pos[0], subs); len(s) > 0 {
			return 0, errUsage{fmt.Errorf("unknown command of lessons %q; did you mean %s? valid: list, show", pos[0], strings.Join(s, " or "))}
		}
		return 0, errUsage{fmt.Errorf("unknown command of lessons %q; valid: list, show", pos[0])}
	case pos[0] == "list" && len(pos) > 1:
		return 0, errUsage{fmt.Errorf("lessons list takes no arguments, not %q", strings.Join(pos[1:], " "))}
	case pos[0] == "list":
		for _, s := range scenarios.All() {
			// Where the file is in this repository.
			fmt.Fprintf(stdout, "%-24s %s\n", s.ID, path.Join("scenarios", s.File))
		}
		return exitOK, nil
	case len(pos) != 2:
		return 0, errUsage{errors.New("lessons show takes one lesson id (lockstep lessons list names them)")}
	}
	s, err := scenarios.Lookup(pos[1])
	if err != nil {
		return 0, unknownName("en", kindScenario, pos[1], scenarios.IDs())
	}
	_, err = stdout.Write(s.Source)
	return exitOK, err
}

// readCourse reads a course file; the lesson directories it names are
// relative to it.
func readCourse(path string) (*scenarios.Course, error) {
	data, err := readFile(path, "course", scenarios.MaxLessonSize)
	if err != nil {
		return nil, err
	}
	c, err := scenarios.ParseCourse(path, data, func(dir string) ([]scenarios.Scenario, error) {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(path), dir)
		}
		return readLessonDir(dir)
	})
	if err != nil {
		return nil, errUsage{err}
	}
	return c, nil
}

// pickLessons keeps the lessons whose ids are in list (comma separated, in
// the catalogue's order); an empty list keeps them all.
func pickLessons(all []scenarios.Scenario, list, lang string) ([]scenarios.Scenario, error) {
	if list == "" {
		return all, nil
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, s.ID)
	}
	var out []scenarios.Scenario
	for id := range strings.SplitSeq(list, ",") {
		i := slices.Index(ids, id)
		if i < 0 {
			return nil, unknownName(lang, kindScenario, id, ids)
		}
		if !slices.ContainsFunc(out, func(s scenarios.Scenario) bool { return s.ID == id }) {
			out = append(out, all[i])
		}
	}
	slices.SortStableFunc(out, func(a, b scenarios.Scenario) int { return slices.Index(ids, a.ID) - slices.Index(ids, b.ID) })
	return out, nil
}

// pickImpls is the implementations named in list (comma separated), in
// the catalogue's order; an empty list is all of them.
func pickImpls(list, lang string) ([]lockimpl.Info, error) {
	if list == "" {
		return lockimpl.All(), nil
	}
	names := strings.Split(list, ",")
	for _, n := range names {
		if _, err := lockimpl.Lookup(n); err != nil {
			return nil, unknownName(lang, kindImpl, n, lockimpl.Names())
		}
	}
	var out []lockimpl.Info
	for _, in := range lockimpl.All() {
		if slices.Contains(names, in.Name) {
			out = append(out, in)
		}
	}
	return out, nil
}
