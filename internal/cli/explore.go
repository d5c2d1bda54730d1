package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/report"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/scenarios/sim"
	"github.com/lockstep-sim/lockstep/text"
)

// exploreFlags are explore's flags.
type exploreFlags struct {
	lang, impl, faults, out, guard                  string
	clients, nodes, attempts, depth, stock, readers int
	maxStates                                       int
	timeout, liveness, lease                        time.Duration
	json, reenter, check                            bool
}

func (a *cli) exploreCmd() *cobra.Command {
	c := command("explore --impl NAME [--clients 2|3] [--faults LIST] [--depth N]",
		text.New("search every schedule for counterexamples", "搜索每一种调度，寻找反例"),
		text.New(`explore tries every order of the clients' Redis commands, the passing of
time and the allowed faults against one implementation, and reports the
shortest schedule that breaks each invariant, as a trace. It exits 1 if
it found one. docs/explore.md has the model and the bounds.`,
			"explore 针对一个锁实现，尝试客户端各条 Redis 命令的每一种顺序、时间的流逝和允许的故障，"+
				"并把破坏每个不变量的最短调度作为轨迹报告出来。找到反例时以 1 退出。模型和边界见 docs/explore.md。"),
		`  lockstep explore --impl uuid-get-del
  lockstep explore --impl fenced --faults expiry,pause --depth 12
  lockstep explore --impl set-nx-ex --out /tmp/cx`)
	f := &exploreFlags{}
	fs := c.Flags()
	fs.StringVar(&f.impl, "impl", "", "the lock implementation `NAME` to search")
	fs.IntVar(&f.clients, "clients", 2, "`N` clients: 2 or 3")
	fs.IntVar(&f.nodes, "nodes", explore.DefaultNodes, "a lock on several servers (Redlock) runs on `N`: 3 or 5")
	fs.IntVar(&f.attempts, "attempts", 1, "`N` acquire attempts per client, every TTL/2 (1: no retry)")
	fs.StringVar(&f.faults, "faults", "expiry", "the faults allowed, a comma-separated `LIST` of: "+strings.Join(faultNames(), ", "))
	fs.IntVar(&f.depth, "depth", explore.DefaultDepth, "try schedules of up to `N` moves")
	fs.DurationVar(&f.liveness, "liveness", explore.TTL, "liveness breaks after a client waits `D` while no live client holds the lock")
	fs.StringVar(&f.guard, "guard", "", "the resource's own check on every write, `NAME`: "+guardNames())
	fs.IntVar(&f.stock, "stock", 100, "the resource's starting stock, `N`")
	fs.BoolVar(&f.reenter, "reenter", false, "each client's critical section takes the lock again (a nested call)")
	fs.BoolVar(&f.check, "check", false, "each client checks that it still holds the lock before it writes")
	fs.IntVar(&f.readers, "readers", 0, "the first `N` clients only read: a read-write lock's readers (at least one client writes)")
	fs.DurationVar(&f.lease, "lease", 0, "each client passes the lease `D` to its lock itself, as Redisson's lock(leaseTime) (0: none)")
	fs.IntVar(&f.maxStates, "max-states", explore.MaxStatesBound, "stop once the search has seen more than `N` states, at most the default (the search keeps every state it has seen: a million take about 1.3 GB); unlike --timeout, the same on every machine")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "stop searching after `D` (0: no limit)")
	fs.StringVar(&f.out, "out", "", "write each counterexample's trace to `DIR`/<impl>-<invariant>.json, each file named on stderr")
	fs.BoolVar(&f.json, "json", false, "print the result as JSON")
	fs.StringVar(&f.lang, "lang", "en", "the report in `LANG`: en or zh")
	usagesZH(fs, map[string]string{
		"impl":       "要搜索的锁实现 `NAME`",
		"clients":    "`N` 个客户端：2 或 3",
		"nodes":      "多台服务器上的锁（Redlock）在 `N` 台上运行：3 或 5",
		"attempts":   "每个客户端尝试加锁 `N` 次，每隔 TTL/2 一次（1：不重试）",
		"faults":     "允许的故障，逗号分隔的 `LIST`，可选：" + strings.Join(faultNames(), "、"),
		"depth":      "尝试最多 `N` 步的调度",
		"liveness":   "有客户端等了 `D`，而其间没有活着的客户端持有锁时，活性被破坏",
		"guard":      "资源端对每次写入自己做的检查 `NAME`：" + guardNames(),
		"stock":      "资源的初始库存 `N`",
		"reenter":    "每个客户端的临界区再获取一次这把锁（嵌套调用）",
		"check":      "每个客户端写入之前先检查锁是否还是自己的",
		"readers":    "前 `N` 个客户端只读：读写锁的读者（至少有一个客户端写）",
		"lease":      "每个客户端自己把租约（过期时间）`D` 交给锁，如 Redisson 的 lock(leaseTime)（0：不交）",
		"max-states": "搜索见过的状态超过 `N` 个时停止，最多为默认值（搜索会保留见过的每个状态：一百万个约占 1.3 GB）；与 --timeout 不同，在每台机器上都一样",
		"timeout":    "搜索 `D` 后停止（0：不限）",
		"out":        "把每个反例的轨迹写入 `DIR`/<impl>-<invariant>.json，并在 stderr 上给出每个文件名",
		"json":       "以 JSON 打印结果",
		"lang":       "报告的语言 `LANG`：en 或 zh",
	})
	inOverview(c, entry("explore --impl NAME [--clients 2|3] [--faults LIST] [--depth N]", text.New("search every schedule of the clients'\n"+
		"commands, time and faults for the\nshortest counterexample of each\ninvariant; exit 1 if one is found",
		"搜索客户端命令、时间和故障的每一种调度，为每个不变量找出最短的反例；找到时以 1 退出")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{
		"impl": one(implNames), "faults": list(faultWords), "lang": one(langs),
		"clients": one(fixed("2", "3")), "nodes": one(fixed("3", "5")), "out": dirs,
	})
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdExplore(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// exploreLookup finds the implementation explore searches: a variable, so
// that a test can search a lock outside the catalogue.
var exploreLookup = lockimpl.Lookup

// cmdExplore searches an implementation's schedules for counterexamples.
func cmdExplore(ctx context.Context, f *exploreFlags, pos []string, stdout, stderr io.Writer) (int, error) {
	if err := checkLang(f.lang); err != nil {
		return 0, err
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(explore.GCPercent))
	}
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("explore takes no arguments, got %q; use --impl NAME", pos)}
	}
	if f.impl == "" {
		return 0, errUsage{fmt.Errorf("explore needs --impl NAME; valid: %s", strings.Join(lockimpl.Names(), ", "))}
	}
	impl, err := lookupImpl(f.lang, f.impl, exploreLookup)
	if err != nil {
		return 0, err
	}
	opts, err := f.options(impl)
	if err != nil {
		return 0, err
	}
	if isTerminal(stderr) {
		opts.Progress = func(p explore.Progress) {
			fmt.Fprintf(stderr, "\r\033[Kdepth %d · %s · %s", p.Depth, text.Count(p.States, "state", "states"), p.Elapsed.Round(100*time.Millisecond))
		}
	}
	res, err := explore.Search(ctx, impl, opts)
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		// A signal: the search stopped where it was, which is no result
		// (Search itself cannot tell it from its timeout).
		return 0, fmt.Errorf("explore stopped at depth %d after %d states: %w", res.Depth, res.States, err)
	}
	files, err := writeFound(f.out, res)
	if err != nil {
		return 0, err
	}
	// The files are named on stderr, so that stdout stays the report (or
	// the JSON, whose findings name them too).
	for _, path := range files {
		fmt.Fprintln(stderr, "wrote", path)
	}
	switch {
	case len(files) > 0:
		fmt.Fprintln(stderr, "step through it: lockstep --trace", files[0])
	case f.out != "":
		fmt.Fprintln(stderr, "wrote nothing to", f.out+": no counterexample found")
	}
	code := exitOK
	if len(res.Found) > 0 {
		code = exitUnmet
	}
	if f.json {
		return code, report.JSON(stdout, exploreJSON(res, files))
	}
	return code, report.Explore(stdout, res, f.lang)
}

// options checks explore's flags other than --impl (impl is the lock it
// names) and --lang, and returns the search's options they set.
func (f *exploreFlags) options(impl lockimpl.Info) (explore.Options, error) {
	var faults []trace.Fault
	for name := range strings.SplitSeq(f.faults, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if !slices.Contains(faultNames(), name) {
				return explore.Options{}, unknownName(f.lang, kindFault, name, faultNames())
			}
			faults = append(faults, trace.Fault(name))
		}
	}
	if faults == nil {
		faults = []trace.Fault{}
	}
	// Options treat zero as "the default"; on the command line a zero is a
	// mistake, not a request for the default.
	if f.depth < 1 {
		return explore.Options{}, errUsage{fmt.Errorf("--depth must be at least 1, not %d", f.depth)}
	}
	if f.timeout < 0 {
		return explore.Options{}, errUsage{fmt.Errorf("--timeout must be 0 (no limit) or more, not %s", f.timeout)}
	}
	if f.liveness <= 0 {
		return explore.Options{}, errUsage{fmt.Errorf("--liveness must be more than 0, not %s", f.liveness)}
	}
	if f.maxStates < 1 || f.maxStates > explore.MaxStatesBound {
		return explore.Options{}, errUsage{fmt.Errorf("--max-states must be 1 to %d (the memory bound), not %d", explore.MaxStatesBound, f.maxStates)}
	}
	if f.stock < 1 {
		return explore.Options{}, errUsage{fmt.Errorf("--stock must be at least 1, not %d", f.stock)}
	}
	var guard trace.Guard
	if f.guard != "" {
		var err error
		if guard, err = trace.ParseGuard(f.guard); err != nil {
			return explore.Options{}, errUsage{fmt.Errorf("--guard: %w", err)}
		}
	}
	if f.nodes != explore.DefaultNodes && impl.Nodes == 1 {
		return explore.Options{}, errUsage{fmt.Errorf("--nodes is for a lock on several servers (%s); %s runs on one", strings.Join(multiNode(), ", "), impl.Name)}
	}
	opts := explore.Options{Clients: f.clients, Nodes: f.nodes, Attempts: f.attempts, Faults: faults, Depth: f.depth, Timeout: f.timeout,
		Liveness: f.liveness, Guard: guard, Stock: f.stock, Reenter: f.reenter, Check: f.check, Readers: f.readers, Lease: f.lease, MaxStates: f.maxStates}
	if err := opts.Validate(); err != nil {
		return explore.Options{}, errUsage{err}
	}
	return opts, nil
}

// writeFound writes each counterexample of res as a trace file in dir,
// if dir is set, and returns the files' paths in the order of res.Found.
func writeFound(dir string, res explore.Result) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, found := range res.Found {
		path := filepath.Join(dir, res.Impl+"-"+found.Invariant+".json")
		if err := writeFile(path, func(w io.Writer) error { return report.JSON(w, found.Trace) }); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// multiNode names the implementations that run on several servers.
func multiNode() []string {
	var out []string
	for _, in := range lockimpl.All() {
		if in.Nodes > 1 {
			out = append(out, in.Name)
		}
	}
	return out
}

// guardNames lists the guards, for help.
func guardNames() string {
	names := make([]string, len(trace.Guards))
	for i, g := range trace.Guards {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

// faultNames are the faults explore may inject.
func faultNames() []string {
	names := make([]string, len(sim.Faults))
	for i, f := range sim.Faults {
		names[i] = string(f)
	}
	return names
}

// exploreJSON is a search result as explore --json prints it; files are
// the trace files --out wrote, one a finding, if any.
func exploreJSON(r explore.Result, files []string) any {
	type finding struct {
		Invariant string   `json:"invariant"`
		Moves     []string `json:"moves"`
		Step      int      `json:"step"`
		T         int64    `json:"t_ns"`
		File      string   `json:"file,omitempty"`
	}
	found := []finding{}
	for i, f := range r.Found {
		v := f.Trace.Verdict(f.Invariant)
		fd := finding{Invariant: f.Invariant, Moves: f.Trace.Schedule.Moves, Step: v.Step, T: int64(v.T)}
		if i < len(files) {
			fd.File = files[i]
		}
		found = append(found, fd)
	}
	o := r.Options
	nodes := 0 // a single server's lock: the field is left out
	if in, err := lockimpl.Lookup(r.Impl); err == nil && in.Nodes > 1 {
		nodes = o.Nodes
	}
	return struct {
		Impl       string        `json:"impl"`
		Clients    int           `json:"clients"`
		Nodes      int           `json:"nodes,omitempty"`
		Attempts   int           `json:"attempts"`
		Faults     []trace.Fault `json:"faults"`
		Liveness   time.Duration `json:"liveness_ns"`
		Guard      trace.Guard   `json:"guard,omitempty"`
		Stock      int           `json:"stock,omitempty"`
		Depth      int           `json:"depth"`
		Complete   bool          `json:"complete"`
		TimedOut   bool          `json:"timed_out"`
		OverBudget bool          `json:"over_budget"`
		States     int           `json:"states"`
		Found      []finding     `json:"found"`
	}{r.Impl, o.Clients, nodes, o.Attempts, o.Faults, o.Liveness, o.Guard, o.Stock, r.Depth, r.Complete, r.TimedOut, r.OverBudget, r.States, found}
}
