package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockstep-sim/lockstep/scenarios/sim/backend"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/text"
)

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
	usagesZH(fs, map[string]string{
		"redis": "用真实服务器 `ADDR[,ADDR...]` 代替内嵌的服务器，每个写成 host:port、[ipv6]:port、" +
			"redis://[user:password@]host:port[/db]、rediss://… 或 unix://[:password@]/path；" +
			"单实例的锁用第一台，Redlock 用前五台",
		"replica": "第一台 --redis 服务器的从库 `ADDR`，用于主从切换的各课（需配合 --disposable）",
		"cluster": "用 Redis Cluster 代替 --redis：`ADDR[,ADDR...]`，它的任意节点（第一个应答的节点告知各槽在哪里）；" +
			"每次运行的锁都在负责其键所在槽的主节点上运行，集群的课程（cluster-slots）也在那里运行；Redlock 需要 --redis",
		"sentinel": "Redis 哨兵 `ADDR[,ADDR...]`（比如三个），在真实服务器上决定主从切换各课的切换，" +
			"需配合 --redis、--replica 和 --disposable：它们经由一个代理、以本次运行自己的名字监视第一台服务器；" +
			"课程让它宕机时，哨兵发现它下线（+sdown、+odown），并把从库提升为主库（+switch-master），" +
			"按真实时间进行，每个场景秒 500ms 或更慢；第一台服务器本身从不被重新配置",
		"disposable": "允许 lockstep 重新配置 --replica（REPLICAOF）并替换它的数据",
		"no-acl": "以 --redis 指定的用户运行各把锁，而不是每次运行新建一个只能访问自己键的 ACL 用户" +
			"（用于 Redis 6 之前的版本，或无权执行 ACL SETUSER 的用户）；此时 lockstep 自己检查每条命令的名字和键，" +
			"但不检查 Lua 脚本做了什么",
		"time-scale": fmt.Sprintf("在真实服务器上，一个场景秒持续 `D`（%s 到 %s）", realredis.MinSecond, realredis.MaxSecond),
	})
	return r
}

// check validates the flags without connecting to anything.
func (r *realFlags) check() error {
	if r.redis != "" && r.cluster != "" {
		return errUsage{errors.New("--redis and --cluster are two kinds of servers: give one")}
	}
	if r.cluster != "" && (r.replica != "" || r.disposable) {
		return errUsage{errors.New("--replica and --disposable go with --redis: a cluster's masters have replicas of their own, and lockstep does not reconfigure them")}
	}
	if r.sentinel != "" && (r.redis == "" || r.replica == "" || !r.disposable) {
		return errUsage{errors.New("--sentinel goes with --redis ADDR --replica ADDR --disposable: the Sentinels promote the replica, which lockstep resynchronises for every run")}
	}
	if r.redis == "" && r.cluster == "" && (r.replica != "" || r.disposable || r.noACL) {
		return errUsage{errors.New("--replica, --disposable and --no-acl go with --redis")}
	}
	if r.second < realredis.MinSecond || r.second > realredis.MaxSecond {
		return errUsage{fmt.Errorf("--time-scale %s out of range; valid: %s to %s per scenario second", r.second, realredis.MinSecond, realredis.MaxSecond)}
	}
	return nil
}

// target connects to the real servers, if any were given, and says on
// stderr what earlier runs left there, if anything (noticeLeftovers).
func (r *realFlags) target(ctx context.Context, stderr io.Writer) (*backend.Target, error) {
	if err := r.check(); err != nil || !r.real() {
		return nil, err
	}
	addrs := r.redis
	if r.cluster != "" {
		addrs = r.cluster
	}
	var sentinels []string
	if r.sentinel != "" {
		sentinels = strings.Split(r.sentinel, ",")
	}
	t, err := realredis.Connect(ctx, realredis.Config{Addrs: strings.Split(addrs, ","), Cluster: r.cluster != "", Sentinels: sentinels,
		Replica: r.replica, Disposable: r.disposable, NoACL: r.noACL, Second: r.second})
	if err != nil {
		return nil, errUsage{err}
	}
	cfg := realredis.CleanConfig{Addrs: strings.Split(addrs, ","), Cluster: r.cluster != "", Replica: r.replica, Sentinels: sentinels}
	noticeLeftovers(ctx, stderr, cfg, realredis.Servers(t), t.Replica)
	return t, nil
}

// noticeLeftovers prints one line on stderr when the servers hold what
// earlier runs left: what, and the lockstep clean command that removes
// it. The run itself removes none of it: another run may be using it.
func noticeLeftovers(ctx context.Context, stderr io.Writer, cfg realredis.CleanConfig, servers []*redis.Options, replica *redis.Options) {
	if line := realredis.Notice(ctx, cfg, servers, replica); line != "" {
		fmt.Fprintln(stderr, "lockstep:", line)
	}
}

// real says whether real servers were given (--redis or --cluster).
func (r *realFlags) real() bool { return r.redis != "" || r.cluster != "" }

func addrs(t *backend.Target) []string {
	var out []string
	for _, o := range t.Nodes {
		out = append(out, o.Addr)
	}
	seen := map[string]bool{}
	for _, r := range t.Slots {
		if !seen[r.Master.Addr] {
			seen[r.Master.Addr] = true
			out = append(out, r.Master.Addr+" (cluster master)")
		}
	}
	if t.Replica != nil {
		out = append(out, t.Replica.Addr+" (replica)")
	}
	return out
}

// closeTarget releases what a run held on real servers (the lease on the
// replica); an error it meets joins the command's.
func closeTarget(t *backend.Target, err *error) {
	if t != nil {
		*err = errors.Join(*err, t.Close())
	}
}

// unreliable says when a run on real servers kept to its clock so unevenly
// that a verdict near a TTL boundary may be off: its drift is beyond the
// margins the timelines leave around those boundaries.
func unreliable(tr *trace.Trace, t *backend.Target, margin time.Duration, lang string) error {
	if t == nil || tr.Drift <= margin {
		return nil
	}
	return errors.New(text.Newf(
		"the verdict is unreliable: the run kept to its clock only within %s, more than its %s margins (a stalled server or a busy machine); run it again, or give a larger --time-scale",
		"结论不可靠：这次运行与时钟的偏差达 %s，超过了 %s 的余量（服务器卡顿或机器繁忙）；请重跑，或加大 --time-scale",
		tr.Drift.Round(100*time.Microsecond), margin).In(lang))
}
