package cli

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

func (a *cli) lessonsCmd() *cobra.Command {
	c := command("lessons list | show ID", text.New("the built-in lesson files", "内置的课程文件"),
		text.New(`lessons list names the built-in lesson files; lessons show ID prints one,
a start for a lesson of your own (docs/lessons.md describes the format).`,
			"lessons list 列出内置的课程文件；lessons show ID 打印其中一个，作为你自己写一课的起点（格式见 docs/lessons.md）。"),
		"  lockstep lessons list\n  lockstep lessons show get-then-del > mine/010-my-race.lesson")
	inOverview(c, entry("lessons list | show ID", text.New("the built-in lesson files; show prints\none, a start for your own",
		"内置的课程文件；show 打印其中一个，作为你自己写一课的起点")))
	c.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			return one(fixed("list\tthe built-in lesson files", "show\tprint one"))(c, args, toComplete)
		case len(args) == 1 && args[0] == "show":
			return one(scenarioNames)(c, nil, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdLessons(pos, a.stdout)) }
	return c
}

// cmdLessons prints a built-in lesson's file: a starting point to copy.
func cmdLessons(pos []string, stdout io.Writer) (int, error) {
	subs := []string{"list", "show"}
	switch {
	case len(pos) == 0:
		return 0, errUsage{errors.New("lessons needs a subcommand: list (the built-in lessons, with their files) or show ID (one lesson's file)")}
	case !slices.Contains(subs, pos[0]):
		return 0, unknownName("en", text.New("command of lessons", "lessons 的命令"), pos[0], subs)
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
