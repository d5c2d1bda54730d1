package derive

import (
	"fmt"
	"regexp"
	"strings"
)

// The lesson docs/lessons.md quotes, annotated, as its complete example.
const (
	ExampleFile  = "scenarios/lessons/030-get-then-del.lesson"
	exampleFirst = "\nlesson get-then-del "
)

// annotation is a comment docs/lessons.md puts at the end of a line of the
// quoted lesson: two spaces or more, then "# ".
var annotation = regexp.MustCompile(`\s{2,}# .*$`)

// LessonsPage returns docs/lessons.md with its annotated example quoted
// afresh from lesson, the file's text, up to its story: each line of the
// file as it is, with the annotation the page gave the same line (the same
// text, the same how-manieth time), and after it the page's lines that are
// only an indented comment. The story's lines stay as the page has them:
// the page shows its start only.
func LessonsPage(page, lesson []byte) ([]byte, error) {
	doc := string(page)
	i := strings.Index(doc, exampleFirst)
	if i < 0 {
		return nil, fmt.Errorf("docs/lessons.md shows no %q", strings.TrimSpace(exampleFirst))
	}
	start := strings.LastIndex(doc[:i], "```\n") + len("```\n")
	n := strings.Index(doc[start:], "```")
	if start < len("```\n") || n < 0 {
		return nil, fmt.Errorf("docs/lessons.md: the example is in no code block")
	}
	shown := doc[start : start+n]
	head, story, ok := strings.Cut(shown, "\nstory en")
	if !ok {
		return nil, fmt.Errorf("docs/lessons.md: the example has no story")
	}
	// notes[text][k] is what the page adds to the k-th line that reads text:
	// its annotation, then the comment lines below it.
	notes := map[string][]string{}
	last := ""
	for l := range strings.Lines(head + "\n") {
		l = strings.TrimSuffix(l, "\n")
		if t := strings.TrimSpace(l); t != l && strings.HasPrefix(t, "#") {
			notes[last][len(notes[last])-1] += "\n" + l
			continue
		}
		text := annotation.ReplaceAllString(l, "")
		notes[text] = append(notes[text], l[len(text):])
		last = text
	}
	fileHead, _, ok := strings.Cut(string(lesson), "\nstory en")
	if !ok {
		return nil, fmt.Errorf("%s has no story", ExampleFile)
	}
	var b strings.Builder
	used := map[string]int{}
	for l := range strings.Lines(fileHead + "\n") {
		l = strings.TrimSuffix(l, "\n")
		b.WriteString(l)
		if k := used[l]; k < len(notes[l]) {
			b.WriteString(notes[l][k])
		}
		used[l]++
		b.WriteString("\n")
	}
	quoted := strings.TrimSuffix(b.String(), "\n") + "\nstory en" + story
	return []byte(doc[:start] + quoted + doc[start+n:]), nil
}
