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
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/web"
)

func (a *cli) siteCmd() *cobra.Command {
	c := command("site [--lang zh] DIR", "write the whole course as a static web site",
		`site writes the course into DIR as static pages: index.html (every lesson,
what happens, which implementations break it), a player page per lesson
with every implementation's run (compare mode, deep links #step=33) and the
self-check, in English and Chinese. All links are relative and nothing is
fetched from the network: DIR works on any static host, or opened from
disk.`,
		"  lockstep site /tmp/course\n  lockstep site --lang zh public")
	lang := c.Flags().String("lang", "en", "the pages open in `LANG`: en or zh (each page switches)")
	inOverview(c, entry("site [--lang zh] DIR", "write the whole course as a static web", "site: every lesson's player page, every", "implementation, the self-check"))
	completeFlags(c, map[string]completeFunc{"lang": one(langs)})
	c.ValidArgsFunction = dirArg
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdSite(c.Context(), *lang, pos, a.stdout)) }
	return c
}

// cmdSite runs the matrix and writes the course's pages into a directory.
func cmdSite(ctx context.Context, lang string, pos []string, stdout io.Writer) (int, error) {
	if err := checkLang(lang); err != nil {
		return 0, err
	}
	if len(pos) != 1 {
		return 0, errUsage{errors.New("site needs the directory to write the pages to, e.g. lockstep site /tmp/course")}
	}
	results, err := checkCells(ctx, scenarios.All(), lockimpl.All())
	if err != nil {
		return 0, err
	}
	pages, err := web.Site{Results: results, Lang: lang, SelfCheck: SelfCheck}.Pages()
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(pos[0], 0o755); err != nil {
		return 0, err
	}
	total := 0
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if err := writeFile(filepath.Join(pos[0], name), func(w io.Writer) error { _, err := w.Write(pages[name]); return err }); err != nil {
			return 0, err
		}
		total += len(pages[name])
	}
	fmt.Fprintf(stdout, "wrote %d pages, %.1f MB, to %s; open %s\n", len(pages), float64(total)/1e6, pos[0], filepath.Join(pos[0], "index.html"))
	return exitOK, nil
}
