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
)

func (a *cli) docsCmd() *cobra.Command {
	c := command("docs [--lang zh] DIR", "regenerate the failure-mode pages of docs/",
		`docs writes the failure-mode pages (README.md and one page per failure mode)
into DIR, from the engine's traces, and the self-check (self-check.md): docs/
is lockstep docs docs (go generate runs it). With --lang zh the same pages in
Chinese.`,
		"  lockstep docs docs\n  lockstep docs --lang zh /tmp/docs-zh")
	lang := c.Flags().String("lang", "en", "the pages in `LANG`: en or zh")
	inOverview(c, entry("docs [--lang zh] DIR", "regenerate the failure-mode pages (docs/)", "from the engine's traces; in Chinese"))
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
