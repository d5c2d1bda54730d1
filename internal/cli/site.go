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
	"github.com/lockstep-sim/lockstep/text"
	"github.com/lockstep-sim/lockstep/web"
)

func (a *cli) siteCmd() *cobra.Command {
	c := command("site [--lang zh] DIR", text.New("write the whole course as a static web site", "把整门课写成一个静态网站"),
		text.New(`site writes the course into DIR as static pages: index.html (every lesson,
what happens, which implementations break it), a player page per lesson
with every implementation's run (compare mode, deep links #step=33) and the
self-check, in English and Chinese. All links are relative and nothing is
fetched from the network: DIR works on any static host, or opened from
disk.`,
			"site 把整门课以静态页面写入 DIR：index.html（每一课、发生了什么、哪些锁实现会被它破坏）、"+
				"每课一个播放器页面，含每个锁实现的运行（对比模式、深链接 #step=33），以及自查清单，中英双语。"+
				"所有链接都是相对链接，不从网络获取任何东西：DIR 放在任何静态主机上都能用，也能直接从磁盘打开。"),
		"  lockstep site /tmp/course\n  lockstep site --lang zh public")
	lang := c.Flags().String("lang", "en", "the pages open in `LANG`: en or zh (each page switches)")
	usagesZH(c.Flags(), map[string]string{"lang": "页面打开时的语言 `LANG`：en 或 zh（每页都能切换）"})
	inOverview(c, entry("site [--lang zh] DIR", text.New("write the whole course as a static web\n"+
		"site: every lesson's player page, every\nimplementation, the self-check",
		"把整门课写成一个静态网站：每课的播放器页面、每个锁实现、自查清单")))
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
