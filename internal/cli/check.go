package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/text"
)

// checkFlags are check's flags.
type checkFlags struct {
	real                                   *realFlags
	lang, junit, lessons, impls, scenarios string
	course                                 string
	json, explore                          bool
}

func (a *cli) checkCmd() *cobra.Command {
	c := command("check [--lessons DIR | --course FILE] [--json] [--junit FILE]",
		text.New("run the matrix: every failure mode against every implementation", "运行矩阵：每个故障模式对每个锁实现"),
		text.New(`check runs every failure mode (or every lesson file in DIR, or every lesson
of a course) against every implementation and compares what broke with each
lesson's expect block. It exits 1 if any cell differs from its expectation,
2 if a cell could not run.`,
			"check 让每个故障模式（或 DIR 里的每个课程文件，或一份课程表的每一课）对每个锁实现运行，"+
				"并把被破坏的不变量与每一课的 expect 块比较。只要有一个组合与预期不符就以 1 退出；有组合无法运行则以 2 退出。"),
		`  lockstep check
  lockstep check --impl uuid-lua,fenced --scenario get-then-del,gc-pause
  lockstep check --lessons mine --junit results.xml
  lockstep check --course week3.course
  lockstep check --explore --scenario gc-pause
  R=127.0.0.1:6390,127.0.0.1:6391,127.0.0.1:6392,127.0.0.1:6393,127.0.0.1:6394
  lockstep check --redis $R --replica 127.0.0.1:6395 --disposable`)
	f := &checkFlags{}
	fs := c.Flags()
	fs.StringVar(&f.scenarios, "scenario", "", "only these failure modes: `ID[,ID...]`")
	fs.StringVar(&f.impls, "impl", "", "only these implementations: `NAME[,NAME...]`")
	fs.StringVar(&f.lessons, "lessons", "", "check the lesson files in `DIR` instead of the built-in lessons")
	fs.StringVar(&f.course, "course", "", "check the lessons of the course in `FILE`, in its order, without opening the TUI")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON, one object per cell")
	fs.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE`")
	fs.BoolVar(&f.explore, "explore", false, "search each lesson's faults with the explorer and compare, cell by cell, with what the lesson breaks (docs/explore.md)")
	fs.StringVar(&f.lang, "lang", "en", "the key and the summary in `LANG`: en or zh")
	usagesZH(fs, map[string]string{
		"scenario": "只运行这些故障模式：`ID[,ID...]`",
		"impl":     "只运行这些锁实现：`NAME[,NAME...]`",
		"lessons":  "检查 `DIR` 里的课程文件，而不是内置的各课",
		"course":   "按顺序检查课程表文件 `FILE` 里的各课，不打开终端界面",
		"json":     "以 JSON 打印结果，每个组合一个对象",
		"junit":    "同时把结果以 JUnit XML 写入 `FILE`",
		"explore":  "用 explore 的搜索探索每一课的故障，并逐个组合地与该课破坏的不变量比较（docs/explore.md）",
		"lang":     "图例和汇总的语言 `LANG`：en 或 zh",
	})
	f.real = addRealFlags(fs)
	inOverview(c, entry("check [--lessons DIR | --course FILE] [--json] [--junit FILE]", text.New("run every failure mode (or every lesson\n"+
		"file in DIR, or a course's) against every\nimplementation; exit 1 if any result\ndiffers from its lesson's expectation",
		"让每个故障模式（或 DIR 里的每个课程文件，或一份课程表的各课）对每个锁实现运行；有结果与该课的预期不符时以 1 退出")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{
		"scenario": list(scenarioNames), "impl": list(implNames), "lang": one(langs), "lessons": dirs,
	})
	completeFlags(c, realCompletions)
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdCheck(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// realParallel is how many cells check runs at once on real servers: they
// mostly wait for leases to run out, but each must keep up with the clock (a
// cell that falls behind runs again, slower: scenarios.CheckOn).
const realParallel = 8

func cmdCheck(ctx context.Context, f *checkFlags, pos []string, stdout, stderr io.Writer) (code int, err error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("check takes no arguments, got %s", strings.Join(pos, " "))}
	}
	if err := checkLang(f.lang); err != nil {
		return 0, err
	}
	lessons := scenarios.All()
	if f.course != "" {
		if f.lessons != "" {
			return 0, errUsage{errors.New("--course FILE takes no --lessons: the course names its lessons")}
		}
		if lessons, err = courseLessons(f.course); err != nil {
			return 0, err
		}
	}
	if f.lessons != "" {
		if lessons, err = readLessonDir(f.lessons); err != nil {
			return 0, err
		}
	}
	noteReplaced(stderr, lessons)
	if lessons, err = pickLessons(lessons, f.scenarios, f.lang); err != nil {
		return 0, err
	}
	impls, err := pickImpls(f.impls, f.lang)
	if err != nil {
		return 0, err
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(explore.GCPercent))
	}
	if f.explore {
		return cmdCheckExplore(ctx, f, lessons, impls, stdout, stderr)
	}
	target, err := f.real.target(ctx, stderr)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	var results []scenarios.Result
	if target != nil {
		results, err = scenarios.CheckCellsOn(ctx, target, lessons, impls, realParallel, scenarios.KeepTraces(noTrace))
	} else {
		results, err = checkVerdicts(ctx, lessons, impls)
	}
	if err != nil {
		return 0, err
	}
	if f.json {
		err = report.JSON(stdout, results)
	} else {
		err = report.Matrix(stdout, results, f.lang)
	}
	if err != nil {
		return 0, err
	}
	if f.junit != "" {
		if err := writeFile(f.junit, func(w io.Writer) error { return report.JUnit(w, results) }); err != nil {
			return 0, err
		}
	}
	code, errored := checkCode(results)
	if errored > 0 {
		// The table is out, with every cell that ran; the ones that could
		// not are a failed run, not an unmet expectation.
		return 0, fmt.Errorf("%d of %d cells could not run (ERROR above)", errored, len(results))
	}
	return code, nil
}

// courseLessons are the lessons of the course in FILE, in its order, each
// once.
func courseLessons(path string) ([]scenarios.Scenario, error) {
	c, err := readCourse(path)
	if err != nil {
		return nil, err
	}
	return c.Lessons(), nil
}

// checkCode is check's exit code for results, and how many cells could not
// run: exitUnmet when a cell breaks other invariants than its lesson
// expects, else exitUntrusted when a cell's verdict did not count, else
// exitOK.
func checkCode(results []scenarios.Result) (code, errored int) {
	unmet, untrusted := false, false
	for _, r := range results {
		switch {
		case r.Error != "":
			errored++
		case r.Untrusted:
			untrusted = true
		case !r.Pass:
			unmet = true
		}
	}
	switch {
	case unmet:
		return exitUnmet, errored
	case untrusted:
		return exitUntrusted, errored
	}
	return exitOK, errored
}

// checkCells runs cells on embedded servers, as many at once as there are
// processors; cancelling ctx (a signal) stops them. check runs them, and
// so do docs and site, whose pages show the matrix. The package's tests,
// which put the same matrix through many commands, run each set of cells
// once (cache_test.go); the engine's determinism is package scenarios' to
// test.
var checkCells = func(ctx context.Context, scs []scenarios.Scenario, impls []lockimpl.Info) ([]scenarios.Result, error) {
	return scenarios.CheckCellsOn(ctx, nil, scs, impls, runtime.GOMAXPROCS(0))
}

// checkVerdicts is checkCells for check itself, which reports the cells'
// verdicts and keeps none of their traces (scenarios.KeepTraces): with
// them, the whole matrix held 150 MB until it was done.
var checkVerdicts = func(ctx context.Context, scs []scenarios.Scenario, impls []lockimpl.Info) ([]scenarios.Result, error) {
	return scenarios.CheckCellsOn(ctx, nil, scs, impls, runtime.GOMAXPROCS(0), scenarios.KeepTraces(noTrace))
}

func noTrace(scenarios.Result) bool { return false }

// agreeCells is how check --explore gets its cells: a variable, so that the
// package's tests share one run of the searches (see cache_test.go).
var agreeCells = scenarios.Agree

// cmdCheckExplore is check --explore: every lesson's search against every
// implementation, each cell set beside what the lesson breaks.
func cmdCheckExplore(ctx context.Context, f *checkFlags, lessons []scenarios.Scenario, impls []lockimpl.Info, stdout, stderr io.Writer) (int, error) {
	switch {
	case f.real.real() || f.real.replica != "":
		return 0, errUsage{fmt.Errorf("--explore searches on embedded servers only; leave out --redis, --cluster and --replica")}
	case f.junit != "":
		return 0, errUsage{fmt.Errorf("--explore has no JUnit report; leave out --junit")}
	}
	var progress func(done, total int)
	if isTerminal(stderr) {
		progress = func(done, total int) { fmt.Fprintf(stderr, "\r\033[Ksearch %d of %d", done, total) }
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	cells, err := agreeCells(ctx, lessons, impls, progress)
	if err != nil {
		return 0, err
	}
	if f.json {
		return exitOK, report.JSON(stdout, cells)
	}
	return exitOK, report.Agreement(stdout, cells, lessons, f.lang)
}
