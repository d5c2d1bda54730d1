package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

// courseVerbs are a course file's verbs, as an unknown one's error lists
// them.
var courseVerbs = []string{"course", "lang", "speed", "spoilers", "lessons", "lesson"}

// Course is a playlist for a class: which lessons, in which order, with
// which implementations, from which step, at which speed, in which
// language, and whether the start screen may show what each lesson is
// expected to break. `lockstep --course FILE` opens the TUI on it. The file
// is in the lessons' line format (docs/lessons.md):
//
//	course Redis locks, week 3
//	lang zh
//	speed 1
//	spoilers off
//	lessons ./mine                  # a directory of the instructor's lessons
//	lesson setnx-no-ex
//	lesson get-then-del impls=uuid-get-del,uuid-lua step=7
//	lesson my-get-then-del
type Course struct {
	Title string
	// Lang is "en" or "zh"; empty: the command line's.
	Lang string
	// Speed is autoplay's steps per second; 0: the command line's.
	Speed float64
	// Spoilers: the start screen may show each lesson's expected verdict,
	// and the player the rows below its cursor; off is --no-spoilers.
	Spoilers bool
	// Dirs are the directories of lessons the course names beside the
	// built-in ones, as written (relative to the course file).
	Dirs    []string
	Entries []CourseEntry
	// mine are the lessons of Dirs, read so far.
	mine []Scenario
}

// CourseEntry is one lesson of a course.
type CourseEntry struct {
	Lesson Scenario
	// Impls are the implementations to show, the first opened; by default
	// the lesson's naive one.
	Impls []string
	// Step is where the player opens (0: the beginning).
	Step int
}

// ParseCourse reads a course file. load reads a directory a "lessons" line
// names (as written); lessons it returns are found by id beside the
// built-in ones.
func ParseCourse(name string, data []byte, load func(dir string) ([]Scenario, error)) (*Course, error) {
	c := &Course{Spoilers: true}
	known := All()
	raws, err := fileLines(name, "course", data)
	if err != nil {
		return nil, err
	}
	fail := func(l line, field int, format string, args ...any) error {
		p := &lessonParser{file: name}
		return p.errAt(l, field, format, args...)
	}
	seen := map[string]bool{}
	for i, raw := range raws {
		l := splitLine(i+1, raw).uncomment()
		if len(l.fields) == 0 {
			continue
		}
		verb := l.fields[0]
		if l.indent {
			return nil, fail(l, 0, "a course has no indented lines")
		}
		if verb != "lesson" && verb != "lessons" {
			if seen[verb] {
				return nil, fail(l, 0, "%s given twice", verb)
			}
			seen[verb] = true
		}
		switch verb {
		case "course":
			c.Title = oneLine(l.rest(1))
		case "lang":
			if len(l.fields) != 2 || l.fields[1] != "en" && l.fields[1] != "zh" {
				return nil, fail(l, 1, "want lang en or lang zh")
			}
			c.Lang = l.fields[1]
		case "speed":
			v, err := strconv.ParseFloat(l.rest(1), 64)
			if len(l.fields) != 2 || err != nil || !slices.Contains(Speeds, v) {
				return nil, fail(l, 1, "want speed N: steps per second, one of the player's speeds: 0.5, 1, 2, 4, 8 or 16")
			}
			c.Speed = v
		case "spoilers":
			if len(l.fields) != 2 || l.fields[1] != "on" && l.fields[1] != "off" {
				return nil, fail(l, 1, "want spoilers on (the start screen shows what each lesson breaks) or spoilers off")
			}
			c.Spoilers = l.fields[1] == "on"
		case "lessons":
			if len(l.fields) != 2 {
				return nil, fail(l, 1, "want lessons DIR: a directory of lesson files")
			}
			if len(c.Dirs) == MaxCourseDirs {
				return nil, fail(l, 0, "the %s lessons line; a course names at most %d directories", ordinal(MaxCourseDirs+1), MaxCourseDirs)
			}
			more, err := load(l.fields[1])
			if err != nil {
				return nil, fail(l, 1, "%v", err)
			}
			if known, err = c.over(known, more); err != nil {
				return nil, fail(l, 1, "%v", err)
			}
			c.Dirs = append(c.Dirs, l.fields[1])
		case "lesson":
			if len(c.Entries) == MaxCourseLessons {
				return nil, fail(l, 0, "the %s lesson; a course has at most %d", ordinal(MaxCourseLessons+1), MaxCourseLessons)
			}
			e, err := courseEntry(l, known, fail)
			if err != nil {
				return nil, err
			}
			c.Entries = append(c.Entries, e)
		default:
			return nil, fail(l, 0, "%s", unknown(text.New("verb", "动词"), verb, courseVerbs))
		}
	}
	if len(c.Entries) == 0 {
		return nil, &LessonError{File: name, Line: len(raws) + 1, Col: 1, Msg: "a course needs at least one \"lesson ID\" line"}
	}
	return c, nil
}

// Lessons are the course's lessons, each once, in the order of their
// first lesson line.
func (c *Course) Lessons() []Scenario {
	var out []Scenario
	for _, e := range c.Entries {
		if !slices.ContainsFunc(out, func(s Scenario) bool { return s.ID == e.Lesson.ID }) {
			out = append(out, e.Lesson)
		}
	}
	return out
}

// over adds a directory's lessons to those a course may name: a lesson
// with a built-in's id takes its place (Over); two of the course's
// directories may not hold one id.
func (c *Course) over(known, more []Scenario) ([]Scenario, error) {
	for _, s := range more {
		i := slices.IndexFunc(known, func(o Scenario) bool { return o.ID == s.ID })
		switch {
		case i < 0:
			known = append(known, s)
		case slices.ContainsFunc(c.mine, func(o Scenario) bool { return o.ID == s.ID }):
			return nil, fmt.Errorf("lesson %s (%s) has the id of another lesson (%s)", s.ID, s.File, known[i].File)
		default:
			known[i] = s
		}
		c.mine = append(c.mine, s)
	}
	return known, nil
}

func courseEntry(l line, known []Scenario, fail func(line, int, string, ...any) error) (CourseEntry, error) {
	var e CourseEntry
	if len(l.fields) < 2 {
		return e, fail(l, 1, "want lesson ID [impls=NAME,…] [step=N]")
	}
	i := slices.IndexFunc(known, func(s Scenario) bool { return s.ID == l.fields[1] })
	if i < 0 {
		var ids []string
		for _, s := range known {
			ids = append(ids, s.ID)
		}
		return e, fail(l, 1, "%s", unknown(text.New("lesson", "课程"), l.fields[1], ids))
	}
	e.Lesson = known[i]
	e.Impls = []string{e.Lesson.Naive}
	for f := 2; f < len(l.fields); f++ {
		k, v, _ := strings.Cut(l.fields[f], "=")
		switch k {
		case "impls":
			e.Impls = strings.Split(v, ",")
			for i, name := range e.Impls {
				if _, err := lockimpl.Lookup(name); err != nil {
					return e, fail(l, f, "%v", err)
				}
				if slices.Contains(e.Impls[:i], name) {
					return e, fail(l, f, "%s named twice", name)
				}
			}
		case "step":
			s, err := strconv.Atoi(v)
			if err != nil || s < 0 {
				return e, fail(l, f, "step: want a step number from 0, got %q", v)
			}
			e.Step = s
		default:
			return e, fail(l, f, "%s", unknown(text.New("argument of lesson", "lesson 的参数"), k, []string{"impls", "step"}))
		}
	}
	return e, nil
}

// Speeds are the player's autoplay speeds in steps per second: the TUI's +
// and − step through them, and a course or the command line may name one.
var Speeds = []float64{0.5, 1, 2, 4, 8, 16}
