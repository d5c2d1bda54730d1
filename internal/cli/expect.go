package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/internal/derive"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/text"
)

// modulePath is lockstep's module, whose go.mod marks the repository
// expect writes into by default.
const modulePath = "github.com/lockstep-sim/lockstep"

// expectFlags are expect's flags.
type expectFlags struct {
	lessons string
	write   bool
}

func (a *cli) expectCmd() *cobra.Command {
	c := command("expect [--lessons DIR] [--write]",
		text.New("the expect rows the lessons lack, for every implementation", "各课缺少的 expect 行，每个锁实现一行"),
		text.New(`expect runs every lock implementation of the catalogue through every lesson
file in DIR whose expect block does not name it, and prints the row the run
gives: what the lock broke in that lesson. By default DIR is scenarios/lessons
of the lockstep repository expect runs in. Without --write nothing is written,
and expect exits 1 when a row is missing: a check for CI. With --write the
rows go into the lesson files, each in the catalogue's place, as go generate
./... writes them; the rows that are there stay as they are. Review the diff:
each new row is the verdict the lesson holds the lock to from then on.`,
			"expect 让锁实现目录里的每个锁实现跑一遍 DIR 里 expect 块没有提到它的每个课程文件，并打印这次运行得出的那一行："+
				"这把锁在这一课里破坏了什么。DIR 默认是 expect 运行所在的 lockstep 仓库的 scenarios/lessons。"+
				"不加 --write 时什么都不写，缺行时 expect 以 1 退出：给 CI 用的检查。"+
				"加 --write 时，这些行写入课程文件，各在目录中的位置，与 go generate ./... 写的一样；已有的行保持原样。"+
				"请审查改动：每一新行都是从此这一课对这把锁要求的结论。"),
		`  lockstep expect
  lockstep expect --write
  lockstep expect --lessons mine --write`)
	f := &expectFlags{}
	fs := c.Flags()
	fs.StringVar(&f.lessons, "lessons", "", "the lesson files `DIR` (default: scenarios/lessons of the repository)")
	fs.BoolVar(&f.write, "write", false, "write the missing rows into the lesson files")
	usagesZH(fs, map[string]string{
		"lessons": "课程文件的目录 `DIR`（默认：仓库的 scenarios/lessons）",
		"write":   "把缺少的行写入课程文件",
	})
	inOverview(c, entry("expect [--lessons DIR] [--write]", text.New("the expect rows the lessons lack, for\n"+
		"every implementation; --write writes\nthem (go generate ./... does)",
		"各课缺少的 expect 行，每个锁实现一行；--write 把它们写入（go generate ./... 就这样做）")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{"lessons": dirs})
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdExpect(f, pos, a.stdout)) }
	return c
}

// cmdExpect prints, or with --write writes, the expect rows the lessons
// of a directory lack (internal/derive), a line each, and sums up. Rows
// missing and not written are exit 1, as unmet expectations are.
func cmdExpect(f *expectFlags, pos []string, stdout io.Writer) (int, error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("expect takes no arguments, got %q (the lessons' directory is --lessons DIR)", strings.Join(pos, " "))}
	}
	dir, err := f.dir()
	if err != nil {
		return 0, err
	}
	find := derive.Missing
	if f.write {
		find = derive.Expect
	}
	rows, err := find(dir, lockimpl.All())
	if err != nil {
		return 0, err
	}
	w := &lines{w: stdout}
	done := "missing"
	if f.write {
		done = "wrote"
	}
	for _, r := range rows {
		w.printf("%s: %s expect %s %s\n", r.File, done, r.Impl, r.Verdict())
	}
	code := exitOK
	switch {
	case len(rows) == 0:
		w.printf("every lesson in %s has an expect row for each of the %d implementations\n", dir, len(lockimpl.All()))
	case f.write:
		w.printf("wrote %s into %s; review them in the diff\n", count(len(rows), "expect row"), dir)
	default:
		w.printf("%s missing in %s; lockstep expect --write writes them (go generate ./... does too)\n", count(len(rows), "expect row"), dir)
		code = exitUnmet
	}
	return code, w.err
}

// dir is the directory of lesson files: --lessons, or the repository's
// scenarios/lessons. It must hold lesson files, so that a mistyped one is
// not a check that passes.
func (f *expectFlags) dir() (string, error) {
	dir := f.lessons
	if dir == "" {
		root, err := repoRootFrom(".")
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "scenarios", "lessons")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", errUsage{err}
	}
	if !st.IsDir() {
		return "", errUsage{fmt.Errorf("%s is not a directory: --lessons takes the directory of the lesson files", dir)}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.lesson")); len(files) == 0 {
		return "", errUsage{fmt.Errorf("%s has no *.lesson files", dir)}
	}
	return dir, nil
}

// repoRootFrom is the nearest directory at or above dir whose go.mod is
// lockstep's module, relative to dir when dir is.
func repoRootFrom(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if goModIs(filepath.Join(d, "go.mod"), modulePath) {
			if rel, err := filepath.Rel(abs, d); err == nil && !filepath.IsAbs(dir) {
				return filepath.Join(dir, rel), nil
			}
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errUsage{errors.New("expect writes into the lessons of lockstep's repository, and this directory is not in one: run it there, or give the lessons' directory with --lessons DIR")}
		}
	}
}

// goModIs says whether the go.mod file at path declares module mod. Its
// module line is read by hand: the binary does not import
// golang.org/x/mod for one line.
func goModIs(path, mod string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == mod
		}
	}
	return false
}

// count is n things, with an s when n is not one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
