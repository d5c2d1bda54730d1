package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

func (a *cli) docsCmd() *cobra.Command {
	c := command("docs [--lang zh] DIR", text.New("regenerate the failure-mode pages of docs/", "重新生成 docs/ 里的故障模式页面"),
		text.New(`docs writes the failure-mode pages (README.md and one page per failure mode)
into DIR, from the engine's traces, and the self-check (self-check.md): docs/
is lockstep docs docs (go generate runs it). With --lang zh the same pages in
Chinese.`,
			"docs 根据引擎的轨迹，把故障模式页面（README.md 和每个故障模式一页）以及自查清单（self-check.md）写入 DIR："+
				"docs/ 就是 lockstep docs docs 生成的（go generate 会运行它）。加 --lang zh 则生成同样的中文页面。"),
		"  lockstep docs docs\n  lockstep docs --lang zh /tmp/docs-zh")
	lang := c.Flags().String("lang", "en", "the pages in `LANG`: en or zh")
	usagesZH(c.Flags(), map[string]string{"lang": "页面的语言 `LANG`：en 或 zh"})
	inOverview(c, entry("docs [--lang zh] DIR", text.New("regenerate the failure-mode pages (docs/)\nfrom the engine's traces; in Chinese",
		"根据引擎的轨迹重新生成故障模式页面（docs/）；也可以是中文的")))
	completeFlags(c, map[string]completeFunc{"lang": one(langs)})
	c.ValidArgsFunction = dirArg
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdDocs(c.Context(), *lang, pos, a.stdout)) }
	return c
}

// cmdDocs writes the generated pages of docs/ into a directory, in lang.
func cmdDocs(ctx context.Context, lang string, pos []string, stdout io.Writer) (int, error) {
	if err := checkLang(lang); err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, errUsage{errors.New("docs needs the directory to write the pages to, e.g. lockstep docs docs")}
	}
	results, err := checkCells(ctx, scenarios.All(), lockimpl.All())
	if err != nil {
		return 0, err
	}
	pages, err := report.DocPagesIn(results, lang)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(pos[0], 0o755); err != nil {
		return 0, err
	}
	names := slices.Sorted(maps.Keys(pages))
	for _, name := range names {
		path := filepath.Join(pos[0], name)
		if err := writeFile(path, func(w io.Writer) error { _, err := w.Write(pages[name]); return err }); err != nil {
			return 0, err
		}
		fmt.Fprintln(stdout, "wrote", path)
	}
	return exitOK, nil
}
