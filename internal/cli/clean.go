package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/realredis"
	"github.com/lockstep-sim/lockstep/text"
)

// cleanFlags are clean's flags: the servers, as the runs were given them.
type cleanFlags struct {
	redis, cluster, replica, sentinel string
	dryRun                            bool
}

func (a *cli) cleanCmd() *cobra.Command {
	c := command("clean --redis LIST [--replica ADDR] [--sentinel LIST] [--dry-run]",
		text.New("remove what killed lockstep runs left on real servers", "清除被杀掉的 lockstep 运行在真实服务器上留下的东西"),
		text.New(`clean finds and removes what lockstep runs that were killed outright
(SIGKILL, a crash) left on real servers: their ACL users (lockstep-run-…,
lockstep-probe-…), their keys (lockstep:<8 hex>:…, {lockstep:<8 hex>:…}…,
bench's lockstep-bench:<8 hex>:…), the lease on the replica, their master
names on the Sentinels (lockstep-lockstep-<8 hex>-…), and a replica a run's
failover left a primary, or following its relay, which clean points back at
the first server (REPLICAOF). It matches only the names lockstep makes;
nothing else is read or written. Give the servers as the runs were given
them. Every run says so, with this command, when it finds such leftovers;
run it when no other lockstep run is using the servers.`,
			"clean 找出并删除被直接杀掉（SIGKILL、崩溃）的 lockstep 运行在真实服务器上留下的东西："+
				"它们的 ACL 用户（lockstep-run-…、lockstep-probe-…）、它们的键（lockstep:<8 hex>:…、{lockstep:<8 hex>:…}…、"+
				"bench 的 lockstep-bench:<8 hex>:…）、从库上的租约、它们在哨兵上的主库名（lockstep-lockstep-<8 hex>-…），"+
				"以及某次运行的主从切换留下的、成了主库或仍跟随其中继的从库：clean 把它重新指回第一台服务器（REPLICAOF）。"+
				"它只匹配 lockstep 起的名字，别的一概不读不写。服务器要按当初交给那些运行的方式给出。"+
				"每次运行发现这类残留时都会提示这条命令；请在没有别的 lockstep 运行使用这些服务器时执行。"),
		`  lockstep clean --redis 127.0.0.1:6379 --dry-run
  lockstep clean --redis $R --replica 127.0.0.1:6395
  lockstep clean --redis $R --replica $P --sentinel $LOCKSTEP_SENTINELS
  lockstep clean --cluster 127.0.0.1:7000`)
	f := &cleanFlags{}
	fs := c.Flags()
	fs.StringVar(&f.redis, "redis", "", "the real servers `ADDR[,ADDR...]`, as the runs were given them (play --redis)")
	fs.StringVar(&f.cluster, "cluster", "", "a Redis Cluster's nodes `ADDR[,ADDR...]` instead of --redis: its masters are cleaned")
	fs.StringVar(&f.replica, "replica", "", "the runs' replica `ADDR`: its ACL users, and pointed back at the first server if a run left it a primary or following its relay")
	fs.StringVar(&f.sentinel, "sentinel", "", "the runs' Sentinels `ADDR[,ADDR...]`: the master names runs gave them")
	fs.BoolVar(&f.dryRun, "dry-run", false, "only list what would be removed")
	usagesZH(fs, map[string]string{
		"redis":    "真实服务器 `ADDR[,ADDR...]`，按当初交给那些运行的方式（play --redis）",
		"cluster":  "Redis Cluster 的节点 `ADDR[,ADDR...]`，代替 --redis：清理它的各个主节点",
		"replica":  "那些运行的从库 `ADDR`：清除它上面的 ACL 用户；某次运行让它成了主库或仍跟随其中继时，把它指回第一台服务器",
		"sentinel": "那些运行的哨兵 `ADDR[,ADDR...]`：清除运行在上面起的主库名",
		"dry-run":  "只列出将被删除的东西",
	})
	inOverview(c, entry("clean --redis ADDR[,ADDR…] [--replica ADDR] [--sentinel ADDR[,ADDR…]]", text.New("remove what killed runs left on real\n"+
		"servers: ACL users, keys, the replica\nlease, Sentinel master names, a promoted\nreplica; --dry-run only lists",
		"清除被杀掉的运行在真实服务器上留下的东西：ACL 用户、键、从库上的租约、哨兵的主库名、被提升的从库；--dry-run 只列出")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, cleanCompletions)
	c.RunE = func(c *cobra.Command, pos []string) error { return a.done(cmdClean(c.Context(), f, pos, a.stdout)) }
	return c
}

// config checks the flags and says where to look.
func (f *cleanFlags) config(pos []string) (realredis.CleanConfig, error) {
	var cfg realredis.CleanConfig
	switch {
	case len(pos) > 0:
		return cfg, errUsage{fmt.Errorf("clean takes no arguments, got %q", strings.Join(pos, " "))}
	case f.redis == "" && f.cluster == "":
		return cfg, errUsage{errors.New("clean removes what lockstep runs left on real servers: give them with --redis ADDR[,ADDR...] (or --cluster), as the runs were given them")}
	case f.redis != "" && f.cluster != "":
		return cfg, errUsage{errors.New("--redis and --cluster are two kinds of servers: give one")}
	case f.cluster != "" && f.replica != "":
		return cfg, errUsage{errors.New("--replica goes with --redis: a cluster's masters have replicas of their own, and lockstep does not reconfigure them")}
	}
	cfg.Addrs, cfg.Cluster, cfg.Replica = strings.Split(f.redis+f.cluster, ","), f.cluster != "", f.replica
	if f.sentinel != "" {
		cfg.Sentinels = strings.Split(f.sentinel, ",")
	}
	return cfg, nil
}

// cmdClean finds what earlier runs left on the servers, prints it a line
// each, removes it unless --dry-run, and sums up.
func cmdClean(ctx context.Context, f *cleanFlags, pos []string, stdout io.Writer) (int, error) {
	cfg, err := f.config(pos)
	if err != nil {
		return 0, err
	}
	cl, err := realredis.OpenCleaner(ctx, cfg)
	if err != nil {
		return 0, errUsage{err}
	}
	defer cl.Close()
	found, err := cl.Find(ctx)
	if err != nil {
		// Nothing is removed unless everything could be looked at.
		return 0, errUsage{err}
	}
	w := &lines{w: stdout}
	switch {
	case len(found) == 0:
		w.printf("nothing left by lockstep runs on %s\n", strings.Join(cl.Servers(), ", "))
	case f.dryRun:
		for _, l := range found {
			w.printf("found %s\n", l)
		}
		w.printf("found %s; --dry-run: nothing removed\n", realredis.Count(found))
	default:
		err = removeAll(ctx, cl, found, w)
	}
	return exitOK, errors.Join(w.err, err)
}

// removeAll removes found, a line each, and sums up; the error says what
// could not be removed.
func removeAll(ctx context.Context, cl *realredis.Cleaner, found []realredis.Leftover, w *lines) error {
	var removed, gone []realredis.Leftover
	var errs []error
	cl.Remove(ctx, found, func(l realredis.Leftover, err error) {
		switch {
		case errors.Is(err, realredis.ErrGone):
			w.printf("gone already: %s\n", l)
			gone = append(gone, l)
		case err != nil:
			w.printf("not removed: %s\n", l)
			errs = append(errs, fmt.Errorf("remove %s: %w", l, err))
		default:
			w.printf("%s\n", l.Removed(cl.Primary()))
			removed = append(removed, l)
		}
	})
	summary := "removed nothing"
	if len(removed) > 0 {
		summary = "removed " + realredis.Count(removed)
	}
	if len(gone) > 0 {
		summary += "; gone already: " + realredis.Count(gone)
	}
	if len(errs) > 0 {
		summary += fmt.Sprintf("; %d could not be removed", len(errs))
	}
	w.printf("%s\n", summary)
	return errors.Join(errs...)
}
