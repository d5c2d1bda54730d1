package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// playFlags are play's flags.
type playFlags struct {
	real                              *realFlags
	lang, impl, format, trace, lesson string
	from, to                          int
}

func (a *cli) playCmd() *cobra.Command {
	c := command("play SCENARIO [--impl NAME] [--format text|md|mermaid|json|html]",
		text.New("play one failure mode as a timeline", "把一个故障模式放成一条时间线"),
		text.New(`play runs one failure mode (or a lesson file of your own, or a saved trace)
against a lock implementation and prints the trace: every command and reply,
what each one means, and the step where an invariant breaks. The default
implementation is the naive one the failure mode is about. When the run does
not break what the lesson's expect block says for the implementation, play
says so and exits 1, as check does. --format html writes one self-contained
page, the player in a browser (it opens from file://, fetches nothing), with
the run of the lesson's fix beside it for compare mode.`,
			"play 让一个故障模式（或你自己的课程文件，或一条保存的轨迹）对一个锁实现运行，并打印轨迹："+
				"每条命令和回复、各自的含义，以及不变量被破坏的那一步。默认的实现是该故障模式针对的朴素实现。"+
				"运行结果与课程的 expect 块为该实现写下的不符时，play 会说明，并以 1 退出，与 check 相同。"+
				"--format html 写出一个自包含的页面：浏览器里的播放器（从 file:// 就能打开，不从网络获取任何东西），"+
				"旁边附上本课修复方案的运行，供对比模式使用。"),
		`  lockstep play get-then-del
  lockstep play get-then-del --impl uuid-lua
  lockstep play gc-pause --impl fenced --lang zh --format md
  lockstep play get-then-del --format mermaid --from 23 --to 33
  lockstep play get-then-del --format html > get-then-del.html
  lockstep play --lesson mine/010-my-race.lesson --impl uuid-lua
  lockstep play --trace /tmp/cx/set-nx-ex-ownership.json
  lockstep play get-then-del --redis 127.0.0.1:6390 --time-scale 1s`)
	f := &playFlags{}
	fs := c.Flags()
	fs.StringVar(&f.impl, "impl", "", "the lock implementation `NAME` (default: the failure mode's naive one)")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, md (a Markdown handout), mermaid (a sequence diagram), json (the trace) or html (a self-contained player page)")
	fs.IntVar(&f.from, "from", 0, "with --format mermaid: the diagram from step `N` (numbered from 0, as the text timeline numbers them)")
	fs.IntVar(&f.to, "to", 0, "with --format mermaid: the diagram up to step `M`, inclusive (default: the last)")
	fs.StringVar(&f.lang, "lang", "en", "narration and messages in `LANG`: en or zh")
	fs.StringVar(&f.lesson, "lesson", "", "play a lesson `FILE` of your own instead of a built-in failure mode")
	fs.StringVar(&f.trace, "trace", "", "play a saved trace `FILE` (play --format json, explore --out) instead of a failure mode")
	usagesZH(fs, map[string]string{
		"impl":   "锁实现 `NAME`（默认：故障模式针对的朴素实现）",
		"format": "输出格式 `FORMAT`：text、md（Markdown 讲义）、mermaid（时序图）、json（轨迹）或 html（自包含的播放器页面）",
		"from":   "配合 --format mermaid：图从第 `N` 步开始（从 0 起编号，与文本时间线的编号相同）",
		"to":     "配合 --format mermaid：图到第 `M` 步为止，包括这一步（默认：最后一步）",
		"lang":   langZH,
		"lesson": "播放你自己的课程文件 `FILE`，代替内置的故障模式",
		"trace":  "播放保存的轨迹文件 `FILE`（play --format json、explore --out 的输出），而不是故障模式",
	})
	f.real = addRealFlags(fs)
	inOverview(c,
		entry("play SCENARIO [--impl NAME] [--format text|md|mermaid|json|html]", text.New("play one failure mode as a text timeline\n"+
			"(default impl: the naive one it is about);\nhtml: one page, the player in a browser",
			"把一个故障模式放成文本时间线（默认实现：它针对的朴素实现）；html：一个页面，浏览器里的播放器")),
		entry("play --lesson FILE [--impl NAME] [--format …]", text.New("play a lesson file of your own", "播放你自己的课程文件")),
		entry("play --trace FILE [--format …]", text.New("play a saved trace (a schedule found by\nexplore is made again and checked)",
			"播放一条保存的轨迹（explore 找到的调度会重新生成并校验）")))
	c.ValidArgsFunction = positional(scenarioNames)
	completeFlags(c, map[string]completeFunc{
		"impl": one(implNames), "format": one(formatNames), "lang": one(langs),
		"lesson": files("lesson"), "trace": files("json"),
	})
	completeFlags(c, realCompletions)
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdPlay(c.Context(), c.Flags(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// formats are play's output formats.
var formats = []string{"text", "md", "mermaid", "json", "html"}

func cmdPlay(ctx context.Context, fs *pflag.FlagSet, f *playFlags, pos []string, stdout, stderr io.Writer) (code int, err error) {
	if err := checkLang(f.lang); err != nil {
		return 0, err
	}
	if !slices.Contains(formats, f.format) {
		return 0, unknownName(f.lang, kindFormat, f.format, formats)
	}
	if err := f.checkSteps(fs); err != nil {
		return 0, err
	}
	if f.trace != "" {
		if len(pos) > 0 || fs.Changed("impl") {
			return 0, errUsage{errors.New("play --trace FILE takes no scenario and no --impl: the trace names them")}
		}
		tr, err := loadTrace(ctx, f.trace)
		if err != nil {
			return 0, err
		}
		return exitOK, f.render(fs, stdout, tr)
	}
	var s scenarios.Scenario
	switch {
	case f.lesson != "":
		if len(pos) > 0 {
			return 0, errUsage{fmt.Errorf("play --lesson FILE takes no scenario: the file is the lesson (got %s)", strings.Join(pos, " "))}
		}
		if s, err = readLesson(f.lesson); err != nil {
			return 0, err
		}
		noteReplaced(stderr, []scenarios.Scenario{s})
	case len(pos) != 1:
		return 0, errUsage{errors.New(text.Newf("play needs one scenario; valid: %s", "play 需要一个场景；可选：%s",
			strings.Join(scenarios.IDs(), ", ")).In(f.lang))}
	default:
		if s, err = scenarios.Lookup(pos[0]); err != nil {
			return 0, unknownName(f.lang, kindScenario, pos[0], scenarios.IDs())
		}
	}
	if !fs.Changed("impl") {
		f.impl = s.Naive
	}
	impl, err := lookupImpl(f.lang, f.impl, lockimpl.Lookup)
	if err != nil {
		return 0, err
	}
	target, err := f.real.target(ctx, stderr)
	if err != nil {
		return 0, err
	}
	defer closeTarget(target, &err)
	tr, err := s.RunOn(ctx, impl, target)
	if errors.Is(err, backend.ErrNeedsReplica) {
		return 0, errUsage{fmt.Errorf("%s needs a replica of the first server: add --replica ADDR --disposable", s.ID)}
	}
	if errors.Is(err, backend.ErrNeedsNodes) {
		return 0, errUsage{fmt.Errorf("%s needs %d servers: give %d addresses in --redis", impl.Name, impl.Nodes, impl.Nodes)}
	}
	if errors.Is(err, backend.ErrNeedsCluster) {
		return 0, errUsage{fmt.Errorf("%s runs on a Redis Cluster: give a node of one in --cluster ADDR (or drop --redis)", s.ID)}
	}
	if errors.Is(err, sim.ErrOwnKeyEmbedded) {
		return 0, errUsage{fmt.Errorf("%s has a client that takes a lock of its own, which the run's ACL user on a real server may not: it runs on embedded servers only (drop --redis)", s.ID)}
	}
	if errors.Is(err, backend.ErrEmbeddedOnly) {
		return 0, errUsage{fmt.Errorf("%s × %s brings the failed primary back as a replica, which would wipe the first server: it runs on embedded servers only (drop --redis)", s.ID, impl.Name)}
	}
	if err != nil {
		return 0, err
	}
	if f.format == "html" {
		err = htmlPage(ctx, stdout, stderr, s, tr, target, f.lang)
	} else {
		err = f.render(fs, stdout, tr)
	}
	if err != nil {
		return 0, err
	}
	var margin time.Duration
	if target != nil {
		margin = target.RunMargin(s.Setup.Replica, impl.Nodes)
	}
	if err := unreliable(tr, target, margin, f.lang); err != nil {
		return 0, err
	}
	return unmet(stderr, s, tr, f.lang), nil
}

// unmet says on w when a run did not break what its lesson's expect block
// says for the implementation, as check would, and is play's exit code:
// exitUnmet then, exitOK otherwise (and for an implementation the block
// does not name).
func unmet(w io.Writer, s scenarios.Scenario, tr *trace.Trace, lang string) int {
	want, judged := s.Expected(tr.Impl)
	got := tr.Broken()
	if !judged || slices.Equal(got, want) {
		return exitOK
	}
	set := func(ids []string) string { return "{" + strings.Join(ids, ",") + "}" }
	fmt.Fprintln(w, "lockstep:", text.Newf("UNMET %s × %s: the lesson's expect block says %s, the run broke %s",
		"不符合预期 %s × %s：课程文件的 expect 预期 %s，实际 %s", s.ID, tr.Impl, set(want), set(got)).In(lang))
	return exitUnmet
}

// render writes a trace in one of the formats.
func render(w io.Writer, tr *trace.Trace, format, lang string) error {
	switch format {
	case "json":
		return report.JSON(w, tr)
	case "md":
		return report.Handout(w, tr, lang)
	case "mermaid":
		return report.Mermaid(w, tr, lang)
	case "html":
		return writePage(w, io.Discard, []*trace.Trace{tr}, lang)
	}
	return report.Timeline(w, tr, lang)
}

// render writes a trace in play's format; a Mermaid diagram only from
// --from to --to.
func (f *playFlags) render(fs *pflag.FlagSet, w io.Writer, tr *trace.Trace) error {
	if !fs.Changed("from") && !fs.Changed("to") {
		return render(w, tr, f.format, f.lang)
	}
	last := len(tr.Events) - 1
	from, to := f.from, last
	if fs.Changed("to") {
		to = f.to
	}
	var bad []string
	if from > last {
		bad = append(bad, fmt.Sprintf("--from %d", from))
	}
	if to > last {
		bad = append(bad, fmt.Sprintf("--to %d", to))
	}
	if len(bad) > 0 {
		return errUsage{fmt.Errorf("%s out of range: %s × %s has steps 0 to %d", strings.Join(bad, " and "), tr.Scenario, tr.Impl, last)}
	}
	return report.MermaidSteps(w, tr, f.lang, from, to)
}

// checkSteps checks --from and --to before anything runs: they go with
// --format mermaid, are steps (0 or more), and from comes before to.
// Whether the trace has them is known once it is there (render).
func (f *playFlags) checkSteps(fs *pflag.FlagSet) error {
	if !fs.Changed("from") && !fs.Changed("to") {
		return nil
	}
	switch {
	case f.format != "mermaid":
		return errUsage{fmt.Errorf("--from and --to go with --format mermaid, not --format %s", f.format)}
	case f.from < 0 || f.to < 0:
		return errUsage{fmt.Errorf("--from and --to are steps, numbered from 0: not %d", min(f.from, f.to))}
	case fs.Changed("to") && f.from > f.to:
		return errUsage{fmt.Errorf("--from %d comes after --to %d", f.from, f.to)}
	}
	return nil
}
