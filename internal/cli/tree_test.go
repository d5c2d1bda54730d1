package cli

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The lists of lockstep's commands are its tree's: every command cobra's
// tree holds (but the hidden __complete) is in the overview, in an unknown
// command's valid ones and in shell completion, with a completion of its
// own for its arguments; and the overview and the valid ones name no
// command the tree does not have. A command added to the tree, and to
// nothing else, passes.
func TestCommandListsAreTheTree(t *testing.T) {
	root := (&cli{stdout: io.Discard}).newRoot()
	var tree []string
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		tree = append(tree, c.Name())
		if c.ValidArgsFunction == nil && len(c.ValidArgs) == 0 {
			t.Errorf("lockstep %s completes its arguments as file names: its constructor sets no ValidArgsFunction", c.Name())
		}
	}
	if len(tree) < 12 {
		t.Fatalf("the tree has %d commands: %v", len(tree), tree)
	}

	help := mustRun(t, "--help")
	var inOverview []string
	for _, m := range regexp.MustCompile(`(?m)^  lockstep ([a-z]\S*)`).FindAllStringSubmatch(help, -1) {
		if !slices.Contains(inOverview, m[1]) {
			inOverview = append(inOverview, m[1])
		}
	}
	_, _, stderr := runCLI(t, "nosuchcmd")
	_, valid, ok := strings.Cut(strings.TrimSpace(stderr), "valid: ")
	if !ok {
		t.Fatalf("lockstep nosuchcmd lists no valid commands: %q", stderr)
	}
	completed, _ := complete(t, "")
	for _, list := range []struct {
		what  string
		names []string
	}{
		{"the overview (lockstep --help)", inOverview},
		{"an unknown command's valid ones (lockstep nosuchcmd)", strings.Split(valid, ", ")},
		{"completion (lockstep __complete '')", completed},
	} {
		for _, name := range tree {
			if !slices.Contains(list.names, name) {
				t.Errorf("%s leaves out lockstep %s", list.what, name)
			}
		}
		for _, name := range list.names {
			if !slices.Contains(tree, name) {
				t.Errorf("%s names lockstep %s, which the tree does not have", list.what, name)
			}
		}
	}
	if !slices.Equal(inOverview, strings.Split(valid, ", ")) {
		t.Errorf("the overview lists the commands in the order %v, an unknown command's valid ones %s", inOverview, valid)
	}
}

// The overview's lines are each command's own, set beside the command: a
// command without them is still listed (subcommands), only without lines,
// which TestCommandListsAreTheTree catches.
func TestEveryCommandHasOverviewLines(t *testing.T) {
	root := (&cli{stdout: io.Discard}).newRoot()
	for _, c := range append(subcommands(root), root) {
		if lines := c.Annotations[overviewKey]; !strings.HasPrefix(lines, "  lockstep ") || !strings.HasSuffix(lines, "\n") {
			t.Errorf("%s's lines in the overview: %q", c.CommandPath(), lines)
		}
	}
}
