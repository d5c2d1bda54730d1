package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

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
