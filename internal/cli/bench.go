package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/bench"
	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/text"
)

// benchFlags are bench's flags.
type benchFlags struct {
	redis, replica, impls string
	duration              time.Duration
}

func (a *cli) benchCmd() *cobra.Command {
	c := command("bench --redis ADDR[,ADDR...] [--replica ADDR] [--impl LIST] [--duration D]",
		text.New("what each lock costs on real Redis: acquire+release pairs per second", "每把锁在真实 Redis 上的开销：每秒加锁+释放的次数"),
		text.New(`bench times acquire+release pairs of every implementation, one client
without contention, against real servers, and prints pairs per second next
to the limit the servers' round trip sets: one SET per round trip, so a lock
that takes one round trip to acquire and one to release reaches half the
SETs per second. The limit is measured just before each row. Single-instance
locks use the first server, Redlock the first five; with --replica (a replica
of the first server) uuid-lua-wait waits for its acknowledgement. bench
writes only keys under a prefix of its own and removes them at the end.`,
			"bench 在真实服务器上，以一个客户端、无竞争地为每个锁实现的加锁+释放计时，打印每秒次数，"+
				"旁边是服务器的往返时间决定的上限：每次往返一条 SET，所以加锁要一次往返、释放要一次往返的锁，"+
				"最多达到每秒 SET 数的一半。上限在每一行之前现测。单实例的锁用第一台服务器，Redlock 用前五台；"+
				"给了 --replica（第一台服务器的从库）时，uuid-lua-wait 会等它的确认。"+
				"bench 只写自己前缀下的键，结束时删掉它们。"),
		`  R=127.0.0.1:6390,127.0.0.1:6391,127.0.0.1:6392,127.0.0.1:6393,127.0.0.1:6394
  lockstep bench --redis $R --replica 127.0.0.1:6395
  lockstep bench --redis 127.0.0.1:6379 --impl set-nx-ex,uuid-lua,fenced --duration 2s`)
	f := &benchFlags{}
	fs := c.Flags()
	fs.StringVar(&f.redis, "redis", "", "the real servers `ADDR[,ADDR...]` (required), as for play --redis")
	fs.StringVar(&f.replica, "replica", "", "`ADDR` of a replica of the first server: uuid-lua-wait then waits for it")
	fs.StringVar(&f.impls, "impl", "", "only these implementations: `NAME[,NAME...]`")
	fs.DurationVar(&f.duration, "duration", time.Second, "how long each implementation runs, `D`")
	usagesZH(fs, map[string]string{
		"redis":    "真实服务器 `ADDR[,ADDR...]`（必填），写法同 play --redis",
		"replica":  "第一台服务器的从库 `ADDR`：uuid-lua-wait 会等它",
		"impl":     "只测这些锁实现：`NAME[,NAME...]`",
		"duration": "每个锁实现运行多久，`D`",
	})
	inOverview(c, entry("bench --redis ADDR[,ADDR…] [--impl LIST] [--duration D]", text.New("time acquire+release pairs of every\nimplementation on real servers",
		"在真实服务器上为每个锁实现的加锁+释放计时")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{"impl": list(implNames)})
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdBench(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

func cmdBench(ctx context.Context, f *benchFlags, pos []string, stdout, stderr io.Writer) (int, error) {
	if len(pos) > 0 {
		return 0, errUsage{fmt.Errorf("bench takes no arguments, got %q", strings.Join(pos, " "))}
	}
	if f.redis == "" {
		return 0, errUsage{errors.New("bench measures real servers: give them with --redis ADDR[,ADDR...] (five for Redlock)")}
	}
	if f.duration <= 0 || f.duration > time.Minute {
		return 0, errUsage{fmt.Errorf("--duration %s out of range; valid: more than 0, at most 1m", f.duration)}
	}
	impls, err := pickImpls(f.impls, "en")
	if err != nil {
		return 0, err
	}
	var nodes []*redis.Options
	for _, a := range strings.Split(f.redis, ",") {
		o, err := realredis.Parse(a)
		if err != nil {
			return 0, errUsage{err}
		}
		if _, err := realredis.Check(ctx, o); err != nil {
			return 0, errUsage{err}
		}
		nodes = append(nodes, o)
	}
	if f.replica != "" {
		o, err := realredis.Parse(f.replica)
		if err != nil {
			return 0, errUsage{err}
		}
		if _, err := realredis.Check(ctx, o); err != nil {
			return 0, errUsage{err}
		}
	}
	// bench touches only the --redis servers: the notice is of theirs.
	noticeLeftovers(ctx, stderr, realredis.CleanConfig{Addrs: strings.Split(f.redis, ",")}, nodes, nil)
	prefix, err := bench.NewPrefix()
	if err != nil {
		return 0, err
	}
	res, err := bench.Run(ctx, bench.Config{Nodes: nodes, Replica: f.replica != "", Prefix: prefix, Duration: f.duration, Impls: impls})
	if err != nil {
		return 0, err
	}
	return exitOK, bench.Print(stdout, res)
}
