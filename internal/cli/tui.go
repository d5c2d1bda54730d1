package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
	"github.com/lockstep-sim/lockstep/text"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/tui"
)

// tuiFlags are the terminal UI's flags, lockstep's own.
type tuiFlags struct {
	opts                   tui.Options
	real                   *realFlags
	trace, lessons, course string
	live                   bool
}

func addTUIFlags(fs *pflag.FlagSet) *tuiFlags {
	f := &tuiFlags{}
	fs.StringVar(&f.opts.Scenario, "scenario", "", "open the player on the failure mode `ID`")
	fs.StringVar(&f.opts.Impl, "impl", "", "with the implementation `NAME` (default: the failure mode's naive one)")
	fs.StringVar(&f.opts.Lang, "lang", "en", "narration and messages in `LANG`: en or zh")
	fs.BoolVar(&f.opts.Autoplay, "autoplay", false, "start playing at once")
	fs.Float64Var(&f.opts.Speed, "speed", 2, "autoplay at `N` steps per second: 0.5, 1, 2, 4, 8 or 16")
	fs.IntVar(&f.opts.Step, "step", 0, "open the player at step `N` (numbered from 0, as play prints them)")
	fs.BoolVar(&f.opts.StopAtViolation, "stop-at-violation", false, "autoplay stops at every step where an invariant breaks")
	fs.BoolVar(&f.opts.NoSpoilers, "no-spoilers", false, "hide what the lesson expects to break, and the rows below the cursor, for a class that should guess first")
	fs.BoolVar(&f.live, "live", false, "play each lesson live: a Redis command goes at each → (with --redis, lockstep monitor --redis ADDR shows it arrive then; the lesson's time stands still in between)")
	fs.StringVar(&f.trace, "trace", "", "open the player on a saved trace `FILE` (play --format json, explore --out)")
	fs.StringVar(&f.lessons, "lessons", "", "list the lesson files in `DIR` beside the built-in lessons")
	fs.StringVar(&f.course, "course", "", "open a course `FILE`: a class's lessons, in order (docs/lessons.md)")
	usagesZH(fs, map[string]string{
		"scenario":          "打开播放器，放故障模式 `ID`",
		"impl":              "用锁实现 `NAME`（默认：故障模式针对的朴素实现）",
		"lang":              langZH,
		"autoplay":          "立即开始自动播放",
		"speed":             "自动播放每秒 `N` 步：0.5、1、2、4、8 或 16",
		"step":              "在第 `N` 步打开播放器（从 0 起编号，与 play 打印的编号相同）",
		"stop-at-violation": "自动播放在每个有不变量被破坏的步骤停下",
		"no-spoilers":       "隐藏课程预期会破坏什么，以及光标以下的行，供先让学生猜的课堂使用",
		"live": "实时播放每一课：每个 → 处发出一条 Redis 命令（配合 --redis 时，" +
			"lockstep monitor --redis ADDR 会显示它在那一刻到达；两步之间课程的时间静止不动）",
		"trace":   "打开播放器，放保存的轨迹文件 `FILE`（play --format json、explore --out 的输出）",
		"lessons": "把 `DIR` 里的课程文件列在内置课程旁边",
		"course":  "打开课程表文件 `FILE`：一堂课的各课，按顺序（docs/lessons.md）",
	})
	f.real = addRealFlags(fs)
	return f
}

// tuiOverview are lockstep's own lines in the overview: the terminal UI's.
var tuiOverview = []text.Text{
	entry("[--scenario ID [--impl NAME]] [--autoplay [--speed N]]", text.New("the terminal UI: pick a failure mode and\n"+
		"an implementation, step through it,\ncompare; x on the start screen opens the\nsandbox",
		"终端界面：选一个故障模式和一个锁实现，一步一步执行，对比；在开始界面按 x 打开沙盒")),
	entry("--scenario ID --step N [--stop-at-violation] [--no-spoilers]", text.New("for a class: open at step N, stop\n"+
		"autoplay where an invariant breaks, keep\nthe verdict hidden until it shows",
		"课堂用：在第 N 步打开，自动播放在不变量被破坏处停下，结论出现之前一直隐藏")),
	entry("--trace FILE", text.New("the player, on a saved trace", "播放器，播放一条保存的轨迹")),
	entry("--lessons DIR", text.New("the TUI, with your lesson files beside the\nbuilt-in lessons",
		"终端界面，把你的课程文件列在内置课程旁边")),
	entry("--course FILE", text.New("the TUI on a course: a class's lessons in\norder (docs/lessons.md)",
		"终端界面打开一份课程表：一堂课的各课，按顺序（docs/lessons.md）")),
}

// tuiCompletions complete the terminal UI's flags, but for the real
// servers' (realCompletions).
var tuiCompletions = map[string]completeFunc{
	"scenario": one(scenarioNames), "impl": one(implNames), "lang": one(langs),
	"speed": one(fixed(speedWords()...)), "trace": files("json"), "lessons": dirs, "course": files("course"),
}

// cmdTUI opens the terminal UI. Without a terminal (a pipe, CI) it prints
// the overview instead of waiting for keys that never come.
func cmdTUI(ctx context.Context, c *cobra.Command, f *tuiFlags, pos []string, stdout io.Writer) (code int, err error) {
	if len(pos) > 0 {
		return 0, unknownCommand(c.Root(), pos[0])
	}
	opts, err := f.options(ctx, c.Flags())
	if err != nil {
		return 0, err
	}
	opts.Command = invokedAs(os.Args[0], os.TempDir(), os.Getenv("GOTMPDIR"))
	noteReplaced(c.ErrOrStderr(), opts.Lessons)
	if opts.Course != nil {
		noteReplaced(c.ErrOrStderr(), opts.Course.Lessons())
	}
	target, err := f.real.target(ctx, c.ErrOrStderr())
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	if !isTerminal(stdout) {
		return exitOK, c.Help()
	}
	if f.live {
		// Each lesson runs as it is shown, on the servers (embedded ones
		// without --redis); leaving it or quitting ends the run, which
		// removes its keys first. A signal ends it too.
		opts.Live = func(lctx context.Context, s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
			lctx, stop := context.WithCancel(lctx)
			defer stop()
			defer context.AfterFunc(ctx, stop)()
			return s.RunOn(lctx, impl, target)
		}
		return exitOK, tui.Run(ctx, opts, os.Stdin, stdout)
	}
	if target == nil {
		return exitOK, tui.Run(ctx, opts, os.Stdin, stdout)
	}
	// A real server's clock cannot be stopped: each trace is recorded on the
	// servers first, then stepped through. Quitting while a recording runs
	// stops it, and waits for it to remove its keys.
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		done    bool
		running sync.WaitGroup
	)
	opts.Recording = strings.Join(addrs(target), ", ")
	opts.Runner = func(s scenarios.Scenario, impl lockimpl.Info) (*trace.Trace, error) {
		mu.Lock()
		if done {
			mu.Unlock()
			return nil, context.Canceled
		}
		running.Add(1)
		mu.Unlock()
		defer running.Done()
		return s.RunOn(ctx, impl, target)
	}
	err = tui.Run(ctx, opts, os.Stdin, stdout)
	mu.Lock()
	done = true
	mu.Unlock()
	cancel()
	running.Wait()
	return exitOK, err
}

// options checks the TUI's flags and reads the files they name: the
// options tui.Run gets, but for the real servers'.
func (f *tuiFlags) options(ctx context.Context, fs *pflag.FlagSet) (opts tui.Options, err error) {
	opts = f.opts
	if opts.Step < 0 {
		return tui.Options{}, errUsage{fmt.Errorf("--step must be 0 or more (steps are numbered from 0, as play prints them), not %d", opts.Step)}
	}
	if opts.Lang != "" {
		if err := checkLang(opts.Lang); err != nil {
			return tui.Options{}, err
		}
	}
	isSet := fs.Changed
	if f.lessons != "" {
		if opts.Lessons, err = readLessonDir(f.lessons); err != nil {
			return tui.Options{}, err
		}
	}
	if f.course != "" {
		if f.lessons != "" || f.trace != "" || opts.Scenario != "" {
			return tui.Options{}, errUsage{errors.New("--course FILE takes no --lessons, --trace or --scenario: the course names its lessons")}
		}
		if opts.Course, err = readCourse(f.course); err != nil {
			return tui.Options{}, err
		}
		// The course's language and speed, unless the command line says.
		if !isSet("lang") {
			opts.Lang = ""
		}
		if !isSet("speed") && opts.Course.Speed > 0 {
			opts.Speed = 0
		}
	}
	if isSet("speed") {
		if err := checkSpeed(opts.Speed); err != nil {
			return tui.Options{}, err
		}
	}
	if opts.Scenario != "" {
		ids := scenarios.IDs()
		for _, l := range opts.Lessons {
			ids = append(ids, l.ID)
		}
		if !slices.Contains(ids, opts.Scenario) {
			return tui.Options{}, unknownName(opts.Lang, kindScenario, opts.Scenario, ids)
		}
	}
	if opts.Impl != "" {
		if _, err := lookupImpl(opts.Lang, opts.Impl, lockimpl.Lookup); err != nil {
			return tui.Options{}, err
		}
	}
	if err := opts.Check(); err != nil {
		return tui.Options{}, errUsage{err}
	}
	if err := f.real.check(); err != nil {
		return tui.Options{}, err
	}
	if f.live && f.trace != "" {
		return tui.Options{}, errUsage{errors.New("--live plays lessons as they run; a --trace FILE has run already")}
	}
	if f.trace != "" {
		if opts.Scenario != "" || opts.Impl != "" {
			return tui.Options{}, errUsage{errors.New("--trace FILE takes no --scenario or --impl: the trace names them")}
		}
		if opts.Trace, err = loadTrace(ctx, f.trace); err != nil {
			return tui.Options{}, err
		}
	}
	if isSet("step") {
		if err := f.checkStep(opts); err != nil {
			return tui.Options{}, err
		}
	}
	return opts, nil
}

// checkStep checks --step against what it opens: a lesson (--scenario, run
// here on embedded servers to count its steps) or a trace; anything else
// opens no step. A run on real servers counts its steps only as it goes.
func (f *tuiFlags) checkStep(opts tui.Options) error {
	tr := opts.Trace
	if tr == nil && opts.Scenario == "" {
		if opts.Course != nil {
			return nil // the course's first lesson opens there
		}
		return errUsage{errors.New("--step N opens a lesson at step N: it goes with --scenario ID or --trace FILE")}
	}
	if tr == nil {
		if f.real.real() {
			return nil
		}
		s, lerr := scenarios.Lookup(opts.Scenario)
		ok := lerr == nil
		for _, l := range opts.Lessons {
			if l.ID == opts.Scenario {
				s, ok = l, true
			}
		}
		impl := opts.Impl
		if impl == "" {
			impl = s.Naive
		}
		info, err := lockimpl.Lookup(impl)
		if !ok || err != nil {
			return nil // named by the checks before; nothing to count
		}
		if tr, err = s.Run(info); err != nil {
			return err
		}
	}
	if last := len(tr.Events) - 1; opts.Step > last {
		return errUsage{fmt.Errorf("--step %d out of range: %s × %s has steps 0 to %d", opts.Step, tr.Scenario, tr.Impl, last)}
	}
	return nil
}

// speeds are the player's autoplay speeds in steps per second: + and −
// step through these, and a speed between two would play at the lower one.
var speeds = scenarios.Speeds

func speedWords() []string {
	var out []string
	for _, s := range speeds {
		out = append(out, strconv.FormatFloat(s, 'g', -1, 64))
	}
	return out
}

// checkSpeed accepts the player's speeds only. (Options read 0 as "the
// default"; typed, it is a mistake.)
func checkSpeed(speed float64) error {
	if slices.Contains(speeds, speed) {
		return nil
	}
	valid := strings.Join(speedWords(), ", ")
	if math.IsNaN(speed) || speed <= 0 || speed > speeds[len(speeds)-1] {
		return errUsage{fmt.Errorf("speed %v out of range; valid: %s steps per second", speed, valid)}
	}
	return errUsage{fmt.Errorf("speed %v is not one of the player's speeds; valid: %s steps per second", speed, valid)}
}

// invokedAs is the command that runs lockstep as the user started it, for
// the TUI's hints (tui.Options.Command), from arg0, its os.Args[0]: "go run
// ." for a binary go run built (under a go-build directory of one of
// tmps: the temporary directory, $GOTMPDIR), else arg0 as it was typed —
// lockstep found on the PATH, ./lockstep, a path — quoted where a shell
// would split or expand it.
func invokedAs(arg0 string, tmps ...string) string {
	if arg0 == "" {
		return "lockstep"
	}
	for _, tmp := range tmps {
		if tmp == "" {
			continue
		}
		rel, err := filepath.Rel(tmp, arg0)
		if err != nil || !filepath.IsAbs(arg0) || !filepath.IsLocal(rel) {
			continue
		}
		// go run builds in $WORK/b001/exe, $WORK a go-build directory
		// it makes in the temporary directory.
		if dir, _, _ := strings.Cut(rel, string(filepath.Separator)); strings.HasPrefix(dir, "go-build") {
			return "go run ."
		}
	}
	if strings.Trim(arg0, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=@%:,./"+string(filepath.Separator)) == "" {
		return arg0
	}
	return "'" + strings.ReplaceAll(arg0, "'", `'\''`) + "'"
}
