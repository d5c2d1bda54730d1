package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/scenarios/explore"
	"github.com/lockstep-sim/lockstep/tui"
)

// The commands and their flags. Each command's RunE hands its flags and
// positional arguments to a cmdX function that checks them and runs.

func langFlag(fs *pflag.FlagSet) *string {
	return fs.String("lang", "en", "narration and messages in `LANG`: en or zh")
}

// realFlags are the flags that point lockstep at real servers.
type realFlags struct {
	redis, replica string
	cluster        string
	sentinel       string
	disposable     bool
	noACL          bool
	second         time.Duration
}

func addRealFlags(fs *pflag.FlagSet) *realFlags {
	r := &realFlags{}
	fs.StringVar(&r.redis, "redis", "", "real servers `ADDR[,ADDR...]` instead of embedded ones, each host:port, [ipv6]:port, redis://[user:password@]host:port[/db], rediss://… or unix://[:password@]/path; single-instance locks use the first, Redlock the first five")
	fs.StringVar(&r.replica, "replica", "", "`ADDR` of a replica of the first --redis server, for the failover lessons (with --disposable)")
	fs.StringVar(&r.cluster, "cluster", "", "a Redis Cluster instead of --redis: `ADDR[,ADDR...]`, any of its nodes (the first that answers tells where the slots are); each run's lock runs on the master that serves the slot of its key, and the cluster lessons (cluster-slots) run there; Redlock needs --redis")
	fs.StringVar(&r.sentinel, "sentinel", "", "Redis Sentinels `ADDR[,ADDR...]` (three, say) that decide the failover lessons' failover on real servers, with --redis, --replica and --disposable: they watch the first server through a proxy under a name of the run's own, and when the lesson kills it they find it down (+sdown, +odown) and promote the replica (+switch-master) in real time, at 500ms per scenario second or slower; the first server itself is never reconfigured")
	fs.BoolVar(&r.disposable, "disposable", false, "lockstep may reconfigure the --replica (REPLICAOF) and replace its data")
	fs.BoolVar(&r.noACL, "no-acl", false, "run the locks as the user --redis names, not as an ACL user made for each run and allowed only its keys (for Redis before 6, or a user who may not run ACL SETUSER); lockstep then checks each command's name and keys itself, but not what a Lua script does")
	fs.DurationVar(&r.second, "time-scale", realredis.DefaultSecond,
		fmt.Sprintf("on real servers, one scenario second lasts `D` (%s to %s)", realredis.MinSecond, realredis.MaxSecond))
	return r
}

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
	f.real = addRealFlags(fs)
	return f
}

func (a *cli) listCmd() *cobra.Command {
	c := command("list", "the failure modes and the lock implementations",
		"list prints the failure modes (lessons), each with the implementation it\nopens with, and the lock implementations.",
		"  lockstep list\n  lockstep list --lang zh")
	lang := langFlag(c.Flags())
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdList(*lang, pos, a.stdout)) }
	return c
}

// playFlags are play's flags.
type playFlags struct {
	real                              *realFlags
	lang, impl, format, trace, lesson string
	from, to                          int
}

func (a *cli) playCmd() *cobra.Command {
	c := command("play SCENARIO [--impl NAME] [--format text|md|mermaid|json|html]",
		"play one failure mode as a timeline",
		`play runs one failure mode (or a lesson file of your own, or a saved trace)
against a lock implementation and prints the trace: every command and reply,
what each one means, and the step where an invariant breaks. The default
implementation is the naive one the failure mode is about. When the run does
not break what the lesson's expect block says for the implementation, play
says so and exits 1, as check does. --format html writes one self-contained
page, the player in a browser (it opens from file://, fetches nothing), with
the run of the lesson's fix beside it for compare mode.`,
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
	f.real = addRealFlags(fs)
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdPlay(c.Context(), c.Flags(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// checkFlags are check's flags.
type checkFlags struct {
	real                                   *realFlags
	lang, junit, lessons, impls, scenarios string
	course                                 string
	json, explore                          bool
}

func (a *cli) checkCmd() *cobra.Command {
	c := command("check [--lessons DIR | --course FILE] [--json] [--junit FILE]",
		"run the matrix: every failure mode against every implementation",
		`check runs every failure mode (or every lesson file in DIR, or every lesson
of a course) against every implementation and compares what broke with each
lesson's expect block. It exits 1 if any cell differs from its expectation,
2 if a cell could not run.`,
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
	f.real = addRealFlags(fs)
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdCheck(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// exploreFlags are explore's flags.
type exploreFlags struct {
	lang, impl, faults, out, guard         string
	clients, nodes, attempts, depth, stock int
	maxStates                              int
	timeout, liveness, lease               time.Duration
	json, reenter                          bool
}

func (a *cli) exploreCmd() *cobra.Command {
	c := command("explore --impl NAME [--clients 2|3] [--faults LIST] [--depth N]",
		"search every schedule for counterexamples",
		`explore tries every order of the clients' Redis commands, the passing of
time and the allowed faults against one implementation, and reports the
shortest schedule that breaks each invariant, as a trace. It exits 1 if
it found one. docs/explore.md has the model and the bounds.`,
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
	fs.DurationVar(&f.lease, "lease", 0, "each client passes the lease `D` to its lock itself, as Redisson's lock(leaseTime) (0: none)")
	fs.IntVar(&f.maxStates, "max-states", explore.MaxStatesBound, "stop once the search has seen more than `N` states, at most the default (the search keeps every state it has seen: a million take about 1.3 GB); unlike --timeout, the same on every machine")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "stop searching after `D` (0: no limit)")
	fs.StringVar(&f.out, "out", "", "write each counterexample's trace to `DIR`/<impl>-<invariant>.json, each file named on stderr")
	fs.BoolVar(&f.json, "json", false, "print the result as JSON")
	fs.StringVar(&f.lang, "lang", "en", "the report in `LANG`: en or zh")
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdExplore(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

func (a *cli) lessonsCmd() *cobra.Command {
	c := command("lessons list | show ID", "the built-in lesson files",
		`lessons list names the built-in lesson files; lessons show ID prints one,
a start for a lesson of your own (docs/lessons.md describes the format).`,
		"  lockstep lessons list\n  lockstep lessons show get-then-del > mine/010-my-race.lesson")
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdLessons(pos, a.stdout)) }
	return c
}

func (a *cli) docsCmd() *cobra.Command {
	c := command("docs [--lang zh] DIR", "regenerate the failure-mode pages of docs/",
		`docs writes the failure-mode pages (README.md and one page per failure mode)
into DIR, from the engine's traces: docs/ is lockstep docs docs (go generate
runs it). With --lang zh the same pages in Chinese.`,
		"  lockstep docs docs\n  lockstep docs --lang zh /tmp/docs-zh")
	lang := c.Flags().String("lang", "en", "the pages in `LANG`: en or zh")
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdDocs(c.Context(), *lang, pos, a.stdout)) }
	return c
}
