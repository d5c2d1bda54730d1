package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/text"
)

func (a *cli) listCmd() *cobra.Command {
	c := command("list", text.New("the failure modes and the lock implementations", "场景（故障模式）和锁实现"),
		text.New("list prints the failure modes (lessons), each with the implementation it\nopens with, and the lock implementations.",
			"list 列出场景（故障模式，即各课），每个附上它默认演示的锁实现，再列出所有锁实现。"),
		"  lockstep list\n  lockstep list --lang zh")
	lang := langFlag(c.Flags())
	inOverview(c, entry("list", text.New("the failure modes and the lock\nimplementations", "场景（故障模式）和锁实现")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{"lang": one(langs)})
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdList(*lang, pos, a.stdout)) }
	return c
}

func cmdList(lang string, pos []string, stdout io.Writer) (int, error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("list takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(lang); err != nil {
		return 0, err
	}
	return exitOK, report.List(stdout, lang)
}
