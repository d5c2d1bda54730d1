package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/realredis"
)

// cleanFlags are clean's flags: the servers, as the runs were given them.
type cleanFlags struct {
	redis, cluster, replica, sentinel string
	dryRun                            bool
}

func (a *cli) cleanCmd() *cobra.Command {
	c := command("clean --redis LIST [--replica ADDR] [--sentinel LIST] [--dry-run]",
		"remove what killed lockstep runs left on real servers",
		`clean finds and removes what lockstep runs that were killed outright
(SIGKILL, a crash) left on real servers: their ACL users (lockstep-run-…,
lockstep-probe-…), their keys (lockstep:<8 hex>:…, {lockstep:<8 hex>:…}…,
bench's lockstep-bench:<8 hex>:…), the lease on the replica, their master
names on the Sentinels (lockstep-lockstep-<8 hex>-…), and a replica a run's
failover left a primary, or following its relay, which clean points back at
the first server (REPLICAOF). It matches only the names lockstep makes;
nothing else is read or written. Give the servers as the runs were given
them. Every run says so, with this command, when it finds such leftovers;
run it when no other lockstep run is using the servers.`,
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
	inOverview(c, entry("clean --redis ADDR[,ADDR…] [--replica ADDR] [--sentinel ADDR[,ADDR…]]", "remove what killed runs left on real",
		"servers: ACL users, keys, the replica", "lease, Sentinel master names, a promoted", "replica; --dry-run only lists"))
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
